// `jobio exporter`: the per-host Prometheus exporter.
import { Command, Option } from 'commander';
import { statSync } from 'node:fs';
import type { Server } from 'node:http';
import { allCollectors } from '../collectors/index.js';
import type { CollectorDescriptor } from '../scrape/collector.js';
import { createEnabledCollectors } from '../scrape/enabled.js';
import { logCollectors } from '../scrape/startup-report.js';
import { Scraper } from '../scrape/scraper.js';
import { createApp } from '../web/app.js';
import { DEFAULT_LIMITS, listen, parseListenAddress, type ServerLimits } from '../web/listen.js';
import { loadWebConfig, type WebConfig } from '../web/web-config.js';
import { WebMetrics } from '../web/web-metrics.js';
import { PasswordChecker } from '../web/password-checker.js';
import { createLogger, DEFAULT_LOG_FORMAT, DEFAULT_LOG_LEVEL, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../util/logger.js';
import { parseDuration } from '../util/duration.js';
import { defaultPaths } from '../util/paths.js';
import { positiveDuration, positiveInteger } from '../scrape/flag-values.js';
import { releaseYoungGeneration } from '../util/young-generation.js';
import { addCollectorFlags, FlagError, readCollectorOptions, readCollectorSelection } from './collector-flags.js';

export const DEFAULT_LISTEN_ADDRESS = ':9717';
const DEFAULT_TELEMETRY_PATH = '/metrics';
const DEFAULT_SCRAPE_TIMEOUT = '10s';

export interface ExporterCommandOptions {
  /** The collectors to offer; tests pass their own (a collector built to fail, one that hangs). */
  readonly descriptors?: readonly CollectorDescriptor[];
  /** Resolves when the exporter should stop (default: SIGTERM or SIGINT). */
  readonly stopSignal?: Promise<string>;
  /** Called once the server listens, with its bound address. */
  readonly onListening?: (server: Server) => void;
}

export function exporterCommand(run: (action: () => Promise<number>) => void, opts: ExporterCommandOptions = {}): Command {
  const descriptors = opts.descriptors ?? allCollectors;
  const command = new Command('exporter')
    .description('Run the Prometheus exporter: Lustre jobstats, profiler records, GPU and per-job resources as metrics.')
    .addOption(new Option('--web.listen-address <address>', 'Address to listen on for the web interface and telemetry.').default(DEFAULT_LISTEN_ADDRESS))
    .addOption(new Option('--web.telemetry-path <path>', 'Path under which to expose metrics.').default(DEFAULT_TELEMETRY_PATH))
    .addOption(new Option('--web.config.file <file>', 'Configuration file for TLS and basic authentication (Prometheus exporter-toolkit format).'))
    .addOption(
      new Option('--web.max-connections <n>', 'Open connections at most; at the cap the longest-waiting connection without a request in progress is closed.').default(
        String(DEFAULT_LIMITS.maxConnections),
      ),
    )
    .addOption(new Option('--web.max-connections-per-peer <n>', 'Open connections at most from one client address (same rule at the cap).').default(String(DEFAULT_LIMITS.maxPerPeer)))
    .addOption(new Option('--web.header-timeout <duration>', 'Time a client has to complete the TLS handshake and send its request headers.').default(`${DEFAULT_LIMITS.headerTimeoutMs / 1000}s`))
    .addOption(new Option('--web.request-timeout <duration>', 'Time a client has to send its whole request.').default(`${DEFAULT_LIMITS.requestTimeoutMs / 1000}s`))
    .addOption(
      new Option('--web.write-timeout <duration>', 'Time a client has to read a complete response; a client that does not read is disconnected.').default(`${DEFAULT_LIMITS.writeTimeoutMs / 1000}s`),
    )
    .addOption(new Option('--log.level <level>', 'Only log messages with the given severity or above.').choices(LOG_LEVELS).default(DEFAULT_LOG_LEVEL))
    .addOption(new Option('--log.format <format>', 'Output format of log messages.').choices(LOG_FORMATS).default(DEFAULT_LOG_FORMAT))
    .addOption(new Option('--path.procfs <path>', 'procfs mountpoint.').default(defaultPaths.procfs))
    .addOption(new Option('--path.sysfs <path>', 'sysfs mountpoint.').default(defaultPaths.sysfs))
    .addOption(
      new Option(
        '--path.lustre <dir>',
        'Root of the Lustre parameter files only (<dir>/proc/fs/lustre, <dir>/sys/fs/lustre, <dir>/sys/kernel/debug/lustre), e.g. a captured tree; default: below --path.procfs and --path.sysfs.',
      ),
    )
    .addOption(new Option('--path.rootfs <path>', 'rootfs mountpoint (host files such as /etc/passwd are read below it).').default(defaultPaths.rootfs))
    .addOption(new Option('--scrape.timeout <duration>', 'Deadline for each collector in one scrape; a collector over it reports success 0.').default(DEFAULT_SCRAPE_TIMEOUT));
  addCollectorFlags(command, descriptors);
  command.action(() => run(() => runExporter(command, descriptors, opts)));
  return command;
}

function listUsage(descriptors: readonly CollectorDescriptor[]): string {
  return descriptors.map((d) => `${d.name}${d.defaultEnabled ? ' (default)' : ''}`).join(', ');
}

async function runExporter(command: Command, descriptors: readonly CollectorDescriptor[], opts: ExporterCommandOptions): Promise<number> {
  const values = command.opts<Record<string, string>>();
  const logger = createLogger(values['log.level'] as LogLevel, values['log.format'] as LogFormat);
  let address;
  let timeoutMs: number;
  let collectorOptions;
  let limits: ServerLimits;
  let webConfig: WebConfig = { basicAuthUsers: new Map(), headers: new Map() };
  try {
    address = parseListenAddress(values['web.listenAddress'] ?? DEFAULT_LISTEN_ADDRESS);
    timeoutMs = parseDuration(values['scrape.timeout'] ?? DEFAULT_SCRAPE_TIMEOUT);
    if (timeoutMs <= 0) throw new FlagError('--scrape.timeout must be positive');
    collectorOptions = readCollectorOptions(command, descriptors);
    limits = readServerLimits(values);
    const telemetry = values['web.telemetryPath'] ?? DEFAULT_TELEMETRY_PATH;
    if (!telemetry.startsWith('/')) throw new FlagError(`--web.telemetry-path must start with "/": ${telemetry}`);
    if (telemetry === '/healthz') throw new FlagError('--web.telemetry-path cannot be /healthz, the liveness check');
    if (values['path.lustre'] !== undefined) requireDirectory('--path.lustre', values['path.lustre']);
  } catch (err) {
    process.stderr.write(`jobio exporter: ${(err as Error).message}\n`);
    return 2;
  }
  try {
    if (values['web.config.file']) webConfig = loadWebConfig(values['web.config.file']);
  } catch (err) {
    // A bad file is a runtime failure (exit 1), not a usage error: the flag itself was well formed.
    process.stderr.write(`jobio exporter: ${(err as Error).message}\n`);
    return 1;
  }
  const selection = readCollectorSelection(command, descriptors);
  const paths = {
    procfs: values['path.procfs'] ?? defaultPaths.procfs,
    sysfs: values['path.sysfs'] ?? defaultPaths.sysfs,
    rootfs: values['path.rootfs'] ?? defaultPaths.rootfs,
    lustre: values['path.lustre'],
  };
  let enabled;
  try {
    enabled = createEnabledCollectors(descriptors, selection, collectorOptions, paths, logger);
  } catch (err) {
    process.stderr.write(`jobio exporter: cannot start collectors: ${(err as Error).message}\n`);
    return 1;
  }
  const scraper = new Scraper(enabled, timeoutMs, logger);
  // Each collector says whether it found its source once the first scrape has read them all (the
  // exporter reads nothing before it is asked: an extra read would show in counters and goldens).
  void scraper.firstScrape.then(() => logCollectors(descriptors, enabled, scraper, logger));
  const webMetrics = new WebMetrics(scraper.self.registry);
  const passwordChecker = webConfig.basicAuthUsers.size > 0 ? new PasswordChecker() : undefined;
  const app = createApp({
    scraper,
    telemetryPath: values['web.telemetryPath'] ?? DEFAULT_TELEMETRY_PATH,
    webConfig,
    collectorNames: enabled.map((e) => e.name),
    logger,
    webMetrics,
    ...(passwordChecker ? { passwordChecker } : {}),
  });
  let server: Server;
  try {
    server = await listen(app, address, { webConfig, metrics: webMetrics, logger, limits });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const where = values['web.listenAddress'];
    const why = e.code === 'EADDRINUSE' ? `address ${where} is already in use` : e.code === 'EACCES' ? `permission denied to listen on ${where}` : e.message;
    const tlsHint = webConfig.tls && !['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'].includes(e.code ?? '') ? ` (check tls_server_config cert_file and key_file in ${values['web.config.file']})` : '';
    process.stderr.write(`jobio exporter: cannot listen: ${why}${tlsHint}\n`);
    await passwordChecker?.close();
    await scraper.close();
    return 1;
  }
  const bound = server.address();
  logger.info(
    {
      address: typeof bound === 'object' && bound ? `${bound.address}:${bound.port}` : String(bound),
      tls: Boolean(webConfig.tls),
      basic_auth: webConfig.basicAuthUsers.size > 0,
      collectors: enabled.map((e) => e.name).join(','),
    },
    'listening',
  );
  logger.debug({ available: listUsage(descriptors) }, 'collectors available');
  releaseYoungGeneration();
  opts.onListening?.(server);

  const reason = await (opts.stopSignal ?? waitForSignal());
  logger.info({ signal: reason }, 'shutting down');
  await new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
  await passwordChecker?.close();
  await scraper.close();
  return 0;
}

function readServerLimits(values: Record<string, string>): ServerLimits {
  const read = <T>(flag: string, key: string, parse: (text: string) => T): T => {
    try {
      // commander fills in every default, so the value is always there.
      return parse(values[key] ?? '');
    } catch (err) {
      throw new FlagError(`invalid value for ${flag}: ${(err as Error).message}`);
    }
  };
  const limits: ServerLimits = {
    maxConnections: read('--web.max-connections', 'web.maxConnections', positiveInteger),
    maxPerPeer: read('--web.max-connections-per-peer', 'web.maxConnectionsPerPeer', positiveInteger),
    headerTimeoutMs: read('--web.header-timeout', 'web.headerTimeout', positiveDuration),
    requestTimeoutMs: read('--web.request-timeout', 'web.requestTimeout', positiveDuration),
    maxPipelined: DEFAULT_LIMITS.maxPipelined,
    writeTimeoutMs: read('--web.write-timeout', 'web.writeTimeout', positiveDuration),
  };
  if (limits.headerTimeoutMs > limits.requestTimeoutMs) throw new FlagError('--web.header-timeout cannot be longer than --web.request-timeout');
  return limits;
}

function waitForSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const onSignal = (signal: string): void => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolveSignal(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** A root given explicitly must exist: a typo would otherwise look like a host without Lustre. */
function requireDirectory(flag: string, dir: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    throw new FlagError(`${flag}: ${dir} does not exist`);
  }
  if (!isDirectory) throw new FlagError(`${flag}: ${dir} is not a directory`);
}
