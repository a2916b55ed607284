// Types of fixture.mjs (the guard vectors' stand-in for Node).
export interface LogEntry { url: string; method: string; headers: Record<string, string>; time: number }
export interface Fixture {
  origin: string;
  port: number;
  log(): LogEntry[];
  reset(): void;
  close(): Promise<void>;
}
export const RESERVED_PORTS: [number, number];
export const PNG_1X1: Uint8Array;
export function fixtureServer(options?: {
  host?: string;
  port?: number;
  tls?: { key: string | Uint8Array; cert: string | Uint8Array };
  latency?: (url: string) => number | undefined;
}): Promise<Fixture>;
