/**
 * What each Temporal process of this run costs, read from /proc at the end of the load: resident memory
 * now, and CPU time used since it last started (a host restarted during the run counts from its restart).
 * Found as this rehearsal's own children running the server binary, so another run on the machine is
 * never counted.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every common build). */
const TICKS = 100;

export function temporalUsage(serverBinary: string): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0] !== serverBinary) continue;
      // The fields after the command's closing parenthesis: state, ppid, …, utime (14th), stime (15th).
      const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const stat = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      if (Number(stat[1]) !== process.pid) continue;
      const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / TICKS;
      const rssMb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0) / 1024;
      const service = argv.find((a) => a.startsWith('--service='))?.slice('--service='.length) ?? 'all four services';
      lines.push(`${service.padEnd(17)} pid ${pid}: RSS ${rssMb.toFixed(0)} MB, CPU ${cpuSeconds.toFixed(1)} s since its start`);
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  return lines.sort();
}
