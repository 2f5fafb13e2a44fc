/** What a pass's groups read and share (bench/groups.ts, bench/payments.ts). */
import type { ChildProcess } from 'node:child_process';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { CpuGroups } from './cpu.js';
import type { JsonClient } from './open-loop.js';

/** The options of a pass that its groups read. */
export interface MeasureOptions {
  temporalAddress: string;
  seconds: number;
  orm: MikroORM;
  databaseUrl: string;
  ca: Buffer;
  receivers: { urls: string[] };
  /** Everything (b) and (c) need from run.ts: rates and the session body. */
  rates: { refund: number; event: number; calmEvent: number };
  sessionBody: string;
  /** References for (a), measured beside it (the floors' ports). */
  references: { f1Port: number; f2Port: number; writesPort: number; workPort: number; workPid?: number };
  /** The benchmark's certificate, for the floors that serve HTTPS as the API does. */
  tls: { certFile: string; keyFile: string };
  /** Keeps a child process to kill if the run dies. */
  track: (child: Promise<ChildProcess>) => Promise<ChildProcess>;
}

/** What a pass's groups share: the service under test, its businesses, and where the figures go. */
export interface PassRun {
  o: MeasureOptions;
  api: ChildProcess;
  apiAdminPort: number;
  /** Each worker's admin port, whose /metrics serves the Temporal SDK's histograms. */
  workerAdminPorts: number[];
  origin: string;
  client: JsonClient;
  key: string;
  businessId: string;
  /** (c)'s endpoints subscribe to every event, on a business of their own, so other scenarios' events do not load them. */
  hooks: { key: string; businessId: string };
  /** (c)'s floor: one endpoint, on a business of its own, so each event is one delivery. */
  floorHooks: { key: string; businessId: string };
  /** A session create as autocannon sends it. */
  post: { method: 'POST'; headers: Record<string, string>; body: string };
  add(name: string, value: number): void;
  cpuNow(): CpuGroups;
  /** CPU per operation by process group between a reading and now, kept as figures (`CPU ms per …`). */
  addCpu(operation: string, before: CpuGroups, operations: number): void;
  scenarioRuns: Record<string, unknown>[];
  apiPeakUnderA: number[];
  /** This round's F4, which (b)'s and (c)'s offered rates follow. */
  lastF4: number;
  /** This round's F3, shown beside (d)'s CPU bound. */
  lastF3: number;
}
