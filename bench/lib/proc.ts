// What /proc (Linux) says about a server process: its CPU time and memory.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** User and system CPU time of a process so far (all its threads: the libuv pool's log writes count). */
export function cpuTimes(pid: number): CpuTimes {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return { userMs: (Number(fields[11]) * 1000) / clockTicks(), systemMs: (Number(fields[12]) * 1000) / clockTicks() };
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
