// Process metrics under the names Prometheus client libraries use (process_*, nodejs_*), read at scrape
// time from `process.*` so that nothing runs between scrapes except the event-loop delay monitor.
import { readdir } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsRegistry } from './registry.js';

export interface ProcessMetricsOptions {
  /** Epoch milliseconds (the injected clock); the start time is derived from it and process.uptime(). */
  readonly now: () => number;
}

/** Registers the process metrics; the returned function stops the event-loop delay monitor. */
export function registerProcessMetrics(registry: MetricsRegistry, options: ProcessMetricsOptions): () => void {
  const cpuUser = registry.counter('process_cpu_user_seconds_total', 'User CPU time spent in seconds.');
  const cpuSystem = registry.counter('process_cpu_system_seconds_total', 'System CPU time spent in seconds.');
  const cpuTotal = registry.counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.');
  const resident = registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.');
  const heapTotal = registry.gauge('nodejs_heap_size_total_bytes', 'V8 heap size in bytes.');
  const heapUsed = registry.gauge('nodejs_heap_size_used_bytes', 'V8 heap used in bytes.');
  const external = registry.gauge(
    'nodejs_external_memory_bytes',
    'Memory of C++ objects bound to JavaScript objects, in bytes.',
  );
  const startTime = registry.gauge(
    'process_start_time_seconds',
    'Start time of the process since the Unix epoch in seconds.',
  );
  const openFds = registry.gauge('process_open_fds', 'Number of open file descriptors (Linux only).');
  const lag = registry.gauge(
    'nodejs_eventloop_delay_p99_seconds',
    'Event loop delay, 99th percentile since the previous scrape, in seconds.',
  );
  const handles = registry.gauge(
    'nodejs_active_resources',
    'Active libuv resources (sockets, timers, files) keeping the event loop alive.',
  );
  const version = registry.gauge('nodejs_version_info', 'Node.js version.', ['version']);

  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  version.set({ version: process.version }, 1);
  const startedAtSeconds = options.now() / 1000 - process.uptime();
  startTime.set(undefined, Math.round(startedAtSeconds));

  registry.addCollector(async () => {
    const cpu = process.cpuUsage();
    cpuUser.setTotal(cpu.user / 1e6);
    cpuSystem.setTotal(cpu.system / 1e6);
    cpuTotal.setTotal((cpu.user + cpu.system) / 1e6);
    const memory = process.memoryUsage();
    resident.set(undefined, memory.rss);
    heapTotal.set(undefined, memory.heapTotal);
    heapUsed.set(undefined, memory.heapUsed);
    external.set(undefined, memory.external);
    lag.set(undefined, Number.isFinite(delay.percentile(99)) ? delay.percentile(99) / 1e9 : 0);
    delay.reset();
    handles.set(undefined, process.getActiveResourcesInfo().length);
    if (process.platform === 'linux') {
      try {
        openFds.set(undefined, (await readdir('/proc/self/fd')).length);
      } catch {
        // /proc not mounted (some containers): leave the last value.
      }
    }
  });
  return () => delay.disable();
}
