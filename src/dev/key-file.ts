import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A development key kept in `dataDir/name` (mode 0600), written on first use from `generate()` and read
 * back as text on every use after. Outside production, `npm start`'s API and worker need the same key
 * without anyone configuring it; production refuses to start without a configured one instead.
 * `wx`: when two processes start together, the first one's key wins and both read it.
 */
export function devKeyFile(dataDir: string, name: string, generate: () => string): string {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, `${generate()}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
