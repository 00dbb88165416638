// The output plug-in of a Mistral configuration (`plugin`): a program `jobio run` starts beside CMD
// and feeds the log's records on its stdin, in blocks every `interval`, framed by the Mistral plug-in
// protocol's control lines (":PGNSUPVRSN:1:1:" once; ":PGNDATASRT:n:", the records, one JSON line
// each, ":PGNDATAEND:n:" per block; ":PGNSHUTDWN:" at the end). The plug-in answers ":PGNVERSION:1:"
// on stdout; its stderr lines are shown as jobio's. If it ends uncleanly (non-zero status, a signal,
// a closed pipe, ":PGNSHUTDWN:" of its own before the end) the records from then on go to the log
// file, with the last block sent (it may not have stored it). Nothing here ever waits on the
// plug-in while CMD runs: the blocks are queued on the pipe, and past a bound the records are dropped
// and counted instead.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from './run-options.js';

/** The plug-in protocol version this jobio speaks (and the only one it offers). */
export const PLUGIN_API_VERSION = 1;
/** Records held between two blocks; more are dropped (a job writing records faster than any interval). */
const MAX_PENDING_RECORDS = 100_000;
/** Bytes queued on the pipe that the plug-in has not read yet; past this a block is dropped, not queued. */
const MAX_BACKLOG_BYTES = 16 << 20;
/** Mistral's default wait for the plug-in at the end of the job (MISTRAL_PLUGIN_EXIT_TIMEOUT). */
const DEFAULT_EXIT_TIMEOUT_S = 30;

/** MISTRAL_PLUGIN_EXIT_TIMEOUT: whole seconds, 0 to 86400. */
export function pluginExitTimeoutMs(env: NodeJS.ProcessEnv): number {
  const text = env['MISTRAL_PLUGIN_EXIT_TIMEOUT'];
  if (text === undefined || text === '') return DEFAULT_EXIT_TIMEOUT_S * 1000;
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 86400)) throw new UsageError(`MISTRAL_PLUGIN_EXIT_TIMEOUT=${text}: must be whole seconds from 0 to 86400`);
  return n * 1000;
}

/** The plug-in's command line: each option as `--NAME VALUE` (a NAME with its own dashes kept), then the switches. */
export function pluginArguments(options: readonly (readonly [string, string])[], switches: readonly string[]): string[] {
  return [...options.flatMap(([name, value]) => [name.startsWith('-') ? name : `--${name}`, value]), ...switches];
}

export interface PluginFeedOptions {
  readonly program: string;
  readonly args: readonly string[];
  readonly intervalSec: number;
  /** `file-output: yes`: every record goes to the log file as well. */
  readonly fileOutput: boolean;
  /** Opens the log file (on first use); undefined when the run has no log file. */
  readonly openLog: () => number | undefined;
  /** The log file's name, for the messages. */
  readonly logName: string | undefined;
  readonly exitTimeoutMs: number;
  readonly say: (line: string) => void;
}

export class PluginFeed {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private pending: string[] = [];
  private lastBlock: string[] = [];
  private blocks = 0;
  private failed = false;
  private ending = false;
  private logFd: number | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly exited: Promise<void>;
  /** Records handed to the plug-in in blocks. */
  sent = 0;
  /** Records neither sent nor written to a log file (bounds reached; no log file after a failure). */
  dropped = 0;

  constructor(private readonly o: PluginFeedOptions) {
    this.child = spawn(o.program, o.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (signal !== null) this.fail(`was killed by ${signal}`);
        else if (code !== 0) this.fail(`exited with status ${code}`);
        else if (!this.ending) this.fail('exited before the end of the job');
        resolve();
      });
      this.child.once('error', (err) => {
        this.fail(`could not be run: ${err.message}`);
        resolve();
      });
    });
    // EPIPE: the plug-in closed its stdin, usually as it exits: its exit status says why, when it
    // comes within a second; a plug-in that lives on without reading has failed all the same.
    this.child.stdin.on('error', () => setTimeout(() => this.fail('closed its input'), 1000).unref());
    createInterface({ input: this.child.stdout }).on('line', (line) => this.heard(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => o.say(`plug-in ${o.program}: ${line}`));
    this.child.stdin.write(`:PGNSUPVRSN:${PLUGIN_API_VERSION}:${PLUGIN_API_VERSION}:\n`);
    this.timer = setInterval(() => this.sendBlock(), o.intervalSec * 1000);
    this.timer.unref();
  }

  /** One record (a JSON line with its newline). */
  readonly record = (line: string): void => {
    if (this.o.fileOutput || this.failed) this.toLog([line]);
    if (this.failed) return;
    if (this.pending.length >= MAX_PENDING_RECORDS) this.dropped++;
    else this.pending.push(line);
  };

  /** The last block, ":PGNSHUTDWN:", then the plug-in's exit (killed after the exit timeout). */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    this.sendBlock();
    this.ending = true;
    if (!this.failed) this.child.stdin.end(':PGNSHUTDWN:\n');
    let kill: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      kill = setTimeout(() => {
        this.o.say(`the plug-in ${this.o.program} was still running ${this.o.exitTimeoutMs / 1000} s after the job (MISTRAL_PLUGIN_EXIT_TIMEOUT): killed`);
        this.child.kill('SIGKILL');
        resolve();
      }, this.o.exitTimeoutMs);
    });
    await Promise.race([this.exited, late]);
    clearTimeout(kill);
    await this.exited;
    if (this.dropped > 0)
      this.o.say(`${this.dropped} records dropped: the plug-in ${this.o.program} did not keep up${this.failed && this.o.logName === undefined ? ' or failed with no log file to fall back to' : ''}`);
  }

  /** The run ends early (CMD could not be started): the plug-in is stopped, not waited for. */
  abandon(): void {
    clearInterval(this.timer);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
  }

  private heard(line: string): void {
    const version = /^:PGNVERSION:(\d+):$/.exec(line);
    if (version && Number(version[1]) !== PLUGIN_API_VERSION) {
      this.fail(`asked for protocol version ${version[1]} (this jobio speaks ${PLUGIN_API_VERSION})`);
      this.child.kill('SIGTERM');
    } else if (line === ':PGNSHUTDWN:' && !this.ending) this.fail('shut down before the end of the job');
  }

  private sendBlock(): void {
    if (this.failed || this.pending.length === 0) return;
    if (this.child.stdin.writableLength > MAX_BACKLOG_BYTES) {
      this.dropped += this.pending.length;
      this.pending = [];
      return;
    }
    const n = ++this.blocks;
    this.child.stdin.write(`:PGNDATASRT:${n}:\n${this.pending.join('')}:PGNDATAEND:${n}:\n`);
    this.sent += this.pending.length;
    this.lastBlock = this.pending;
    this.pending = [];
  }

  /** From now on the records go to the log file: the last block sent (unless already there) and the ones not sent. */
  private fail(why: string): void {
    if (this.failed) return;
    this.failed = true;
    clearInterval(this.timer);
    const where = this.o.logName !== undefined ? `the records go to the log file ${this.o.logName}` : 'there is no log file (output) to write the records to';
    this.o.say(`the plug-in ${this.o.program} ${why}: ${where}`);
    // with file-output every record is in the log already
    const rest = this.o.fileOutput ? [] : [...this.lastBlock, ...this.pending];
    this.pending = [];
    this.lastBlock = [];
    this.toLog(rest);
  }

  private toLog(lines: readonly string[]): void {
    if (lines.length === 0) return;
    this.logFd ??= this.o.openLog();
    if (this.logFd === undefined) {
      this.dropped += lines.length;
      return;
    }
    // One write(2) per record, as the log file is written without a plug-in (output-file.ts)
    for (const line of lines) writeSync(this.logFd, line);
  }
}
