/**
 * How a second `npm start` beside the first needs one variable, not six (issue 42): under `npm start`
 * (NODE_ENV=development), a PORT other than its default moves every other port it opens that is not set
 * explicitly to PORT plus a fixed offset. The default instance keeps the ports the docs name (3443, 9464,
 * 9465, 54329, 7233, 8233); `PORT=8443` takes 8443 to 8448. Production and test runs derive nothing: a
 * deployment and the test harness name every port they use, and a moved ops port would hide a
 * deployment's probes. docs/decisions.md, "A second npm start".
 */
import type { Environment } from './environment.js';

export const DEFAULT_PORT = 3443;

/** Each port `npm start` opens besides the API's, by its variable, and its offset from PORT when derived. */
export const PORT_OFFSETS = {
  ADMIN_PORT: 1,
  TEMPORAL_METRICS_ADDRESS: 2,
  DEV_POSTGRES_PORT: 3,
  DEV_TEMPORAL_PORT: 4,
  DEV_TEMPORAL_UI_PORT: 5,
} as const;

export type DerivedPortVariable = keyof typeof PORT_OFFSETS;
export type PortVariable = 'PORT' | DerivedPortVariable;

/** Which ports were derived, and from which PORT; null when none was (the default PORT, or outside development). */
export interface DerivedPorts {
  from: number;
  variables: DerivedPortVariable[];
}

export class PortSchemeError extends Error {}

/**
 * The environment with every unset port of `npm start` derived from PORT, when PORT is set to another
 * port than its default (0, any free port, derives nothing: there is no number to follow).
 */
export function derivePorts(c: Environment, isSet: (name: string) => boolean): { env: Environment; derived: DerivedPorts | null } {
  if (c.NODE_ENV !== 'development' || !isSet('PORT') || c.PORT === DEFAULT_PORT || c.PORT === 0) return { env: c, derived: null };
  const variables = (Object.keys(PORT_OFFSETS) as DerivedPortVariable[]).filter((name) => !isSet(name));
  const env = { ...c };
  for (const name of variables) {
    const port = c.PORT + PORT_OFFSETS[name];
    if (port > 65535) {
      throw new PortSchemeError(
        `Invalid configuration: ${name} follows PORT (PORT+${PORT_OFFSETS[name]}), which leaves no room above PORT=${c.PORT}; choose a PORT up to ${65535 - 5}, or set ${name}`,
      );
    }
    if (name === 'TEMPORAL_METRICS_ADDRESS') env.TEMPORAL_METRICS_ADDRESS = `127.0.0.1:${port}`;
    else env[name] = port;
  }
  return { env, derived: variables.length ? { from: c.PORT, variables } : null };
}
