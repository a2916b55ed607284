// Types of guard-driver.mjs (the guard vectors' driver and judge; no imports, no Node APIs).

export type Status = 'pass' | 'fail' | 'skip' | 'not-run';
export interface CdpEvent { method: string; params?: any; sessionId?: string }
/** A CDP client of the spec's shape; a rejection carries the protocol error as `error.cdp`. */
export interface Client {
  send(method: string, params?: object, sessionId?: string): Promise<any>;
  waitEvent(predicate: (e: CdpEvent) => boolean, ms: number): Promise<CdpEvent>;
  events: CdpEvent[];
}
/** A leg's variables: a value, or `{ null: <origin name> }` for a null origin. */
export type Vars = Record<string, string | { null: string }>;
export type Origins = Record<string, string | null | undefined>;
export type Recorded = { outcome: 'value'; value: any } | { outcome: 'failed'; value: string } | { outcome: 'pending' };
export interface LogEntry { url: string; method: string; headers?: Record<string, string>; time: number }
/** What one leg recorded (the crate's `Record` as JSON); missing members read as empty. */
export interface LegRecord {
  tag?: string; log?: LogEntry[]; events?: CdpEvent[]; outcomes?: Record<string, Recorded>;
  refused?: string[]; refusalErrors?: Record<string, string>;
  sessions?: { role: string; sessionId: string; targetId: string; url: string }[];
  detached?: string[]; executed?: string[]; reads?: [object, Recorded][]; observer?: boolean;
  errors?: string[]; navigationErrors?: { session: string; url: string; error: string }[]; unsupported?: string[];
}
export interface Row {
  id: string; target: string; variant: string; transport: string; via: string;
  control: Status; guarded: Status; live: Status; reason?: string;
  observations: Record<string, Record<string, boolean | null>>; errors: string[]; transportVariant: boolean;
}
export interface RowSpec { vector: any; target: string; variant: string; transport: string; transportVariant?: boolean }
export interface Environment { origins: Origins; capabilities?: Capabilities; observer: boolean; ownStatic?: boolean }
export type Capabilities = Partial<Record<'autoAttach' | 'browserSession' | 'browserContexts', boolean>> | string[];
export interface LegVerdict { status: Status; skip?: string; observations: Record<string, boolean | null>; errors: string[] }
export interface Summary {
  set: string; schemaVersion: number; guard: string; sha: string; variants: string[]; targets: string[];
  transports: string[]; results: Row[]; skipped: number; notRun: number;
  missing: { id: string; target: string; variant: string; transport: string }[]; pass: boolean; line: string;
  skips: Record<string, number>; observerSkipped: number; passed: number; failed: number;
}

export const CAPABILITIES: string[];
export const REQUIRED_ORIGINS: string[];
export const OPTIONAL_ORIGINS: Record<string, string>;
export const SKIP_OBSERVER: string;
export const SKIP_NOT_OBSERVABLE: string;
export const CATALOG_REFUSAL: string;
export class GuardVectorError extends Error { where: string; constructor(where: string, message: string) }

export function originOf(url: string): string | undefined;
export function hostOf(url: string): string | undefined;
export function tokens(text: string): [number, number, string][];
export function expand<T>(value: T, vars: Vars): T;
export function nullIn(value: any, vars: Vars): string | undefined;
export function resolveOrigin(origins: Origins, name: string): [string | null, string];
export function legVars(o: { origins: Origins; leg: 'control' | 'guarded'; target: string; tag: string; cookie?: string }): Vars;
export function checkOrigins(origins: Origins): void;
export function hop(origin: string, code: number, to: string): string;
export function chainUrls(hops: { origin: string; code: number }[], to: string): string[];
export function beacon(log: string, tag: string): string;
export function probe(log: string, tag: string): string;
export function preUrl(log: string, tag: string, to: string): string;
export function pageAction(action: string, url: string, log: string, tag: string): string | undefined;
export function iframe(url: string): string;
export function loader(action: 'fetch' | 'xhr' | 'image', url: string, status?: boolean, credentials?: string): string | undefined;
export const canary: {
  plant(value: string, name?: string): string;
  read(name?: string): string;
  untouched(value: string, read: { cookie: string; storage: string; indexedDB: string }): boolean;
};
export function stepKind(step: object): string | undefined;
export function refusals(vector: any): string[];
export function steps(vector: any, side: 'control' | 'guarded', vars: Vars): any[];
export function predicateError(p: any, at?: string): string | undefined;
export function matches(p: any, actual: any): boolean;
export function base64Decode(text: string): Uint8Array | undefined;
export function checkKind(check: object): string | undefined;
export function requirement(check: object, vars: Vars, observer: boolean): string | undefined;
export function readFor(check: object): object | undefined;
export function legReads(vector: any, side: 'control' | 'guarded', vars: Vars): object[];
export function normalizeRecord(record: LegRecord): Required<LegRecord>;
export function judgeLeg(vector: any, side: 'control' | 'guarded', run: { vars: Vars; record: LegRecord }, observer: boolean, options?: { refusal?: string }): LegVerdict;
export function judgeLive(vector: any, run: { vars: Vars; record: LegRecord }, observer: boolean, options?: { refusal?: string }): LegVerdict;
export function evaluate(vector: any, side: 'control' | 'guarded', run: { vars: Vars; record: LegRecord }, observer: boolean, check: object, options?: { refusal?: string }): boolean | string;
export function judge(vector: any, side: 'control' | 'guarded', observed: Record<string, boolean | null | undefined>): {
  pass: boolean; refused: string[]; skipped: string[]; mismatches: { name: string; observed: any; expected: any }[];
};
export function capabilitySet(capabilities?: Capabilities): Record<'autoAttach' | 'browserSession' | 'browserContexts', boolean>;
export function requiredCapabilities(vector: any): string[];
export function precheck(spec: RowSpec, env: Environment): Row | undefined;
export function judgeRow(spec: RowSpec, env: Environment, control: { vars: Vars; record: LegRecord }[], guarded: { vars: Vars; record: LegRecord }, options?: { refusal?: string }): Row;
export function result(vector: any, run: {
  target: string; variant: string; transport: string; via?: string; capabilities?: Capabilities;
  control: Status | boolean; guarded: Status | boolean; live: Status | boolean; reason?: string; errors?: string[]; transportVariant?: boolean;
}): Row;
export function summary(input: { guard: string; sha: string; set: any; results: Row[]; variants?: string[]; transports?: string[]; scope?: string }): Summary;
export function checkSet(set: any): void;
export function checkClient(client: any, what?: string): void;
export function withTimeout<T>(promise: Promise<T> | T, ms: number, what: string): Promise<T>;
export function outcome(answer: any, error?: any): { ok: true; result: any } | { ok: false; error: { code?: number; message: string } };
export function call(client: Client, step: { cdp: string; params?: object }, sessionId?: string, ms?: number): Promise<ReturnType<typeof outcome>>;
export function isRefusal(result: any, step: { refusal?: { match?: string } }): boolean;
export function instrument(client: Client, sessionId: string, log: string, tag: string, ms?: number): Promise<string | undefined>;
export function load(client: Client, sessionId: string, url: string, ms?: number): Promise<{ ok: boolean; errorText?: string; loaderId?: string }>;
export function popup(client: Client, openerId: string, ms?: number): Promise<any>;
