// What /proc (Linux) says about a server process: its CPU time and memory.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** Clock ticks a second, the unit of /proc/PID/stat's CPU times (100 almost everywhere). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU time of a process so far, in ms: user and system (the kernel's work for it: syscalls, page faults). */
export interface CpuTimes {
  userMs: number;
  systemMs: number;
}

/** The name and CPU times of a `stat` line of /proc (a process's or one of its threads'). */
function parseStat(stat: string): { name: string; times: CpuTimes } {
  // The name is in parentheses and may hold spaces and parentheses of its own: the fields follow the last `) `.
  const close = stat.lastIndexOf(') ');
  const fields = stat.slice(close + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return {
    name: stat.slice(stat.indexOf('(') + 1, close),
    times: { userMs: (Number(fields[11]) * 1000) / clockTicks(), systemMs: (Number(fields[12]) * 1000) / clockTicks() },
  };
}

/** User and system CPU time of a process so far (all its threads: the libuv pool's log writes count). */
export function cpuTimes(pid: number): CpuTimes {
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).times;
}

/**
 * User and system CPU time of each thread of a process so far, by thread
 * name (`main` for the process's own thread; threads of one name summed,
 * such as V8's helpers, all named `node`). A thread that ended meanwhile is
 * left out.
 */
export function threadCpuTimes(pid: number): Map<string, CpuTimes> {
  const out = new Map<string, CpuTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const { name, times } = parseStat(stat);
    const key = tid === String(pid) ? 'main' : name.replace(/[0-9]+$/, '').trim();
    const seen = out.get(key) ?? { userMs: 0, systemMs: 0 };
    out.set(key, { userMs: seen.userMs + times.userMs, systemMs: seen.systemMs + times.systemMs });
  }
  return out;
}

/** User + system CPU time of a process so far, in ms. */
export function cpuMs(pid: number): number {
  const { userMs, systemMs } = cpuTimes(pid);
  return userMs + systemMs;
}

export interface Memory {
  /** Resident set size now, in MB. */
  rssMb: number;
  /** The highest resident set size so far (VmHWM), in MB. */
  peakMb: number;
}

/** Resident set size of a process, now and at its peak. */
export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
