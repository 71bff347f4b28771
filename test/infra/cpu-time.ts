/**
 * CPU time (user + system, this process) spent by a synchronous call. Tests that guard against a
 * pathological blow-up (backtracking, quadratic table spans) bound this instead of wall time: wall
 * time grows with the machine's load, CPU time only with the work done.
 */
export function cpuMsOf<T>(fn: () => T): { value: T; cpuMs: number } {
  const before = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

/**
 * cpuMsOf for an asynchronous call. The process's CPU time includes whatever else it ran meanwhile
 * (its other timers, GC threads), so the bound stays as loose as a blow-up is large.
 */
export async function cpuMsOfAsync<T>(fn: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}
