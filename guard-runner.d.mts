// Types of guard-runner.mjs (the reference runner, browser ESM).
import type { Capabilities, Client, Origins, Row, Summary } from './guard-driver.mjs';

export { summary } from './guard-driver.mjs';

export interface RowClients { client: Client; unguarded?: Client; close?: () => void | Promise<void>; transportVariant?: boolean }
export interface RunOptions {
  clientFactory?: (metadata: { variant: string; detachDelay: number; vector: any; target: string; slot: number }) => Client | RowClients | Promise<Client | RowClients>;
  client?: Client;
  unguarded?: Client;
  slot?: number;
  parallel?: number;
  variant?: string | string[];
  targets: Origins;
  capabilities?: Capabilities & { scope?: string };
  fixture?: { log(): any[] | Promise<any[]> };
  log?: (row: Row) => void;
  ids?: string[];
  runTargets?: string[];
  transport?: string;
  ownStatic?: boolean;
  callTimeout?: number;
  legTimeout?: number;
}
export function run(set: any, options: RunOptions): Promise<{ results: Row[]; summary(metadata: { guard: string; sha: string }): Summary }>;
export function idsBetween(a: string, b: string): string[];
