// The host name with its domain, as Mistral's records carry it (`hostname`): the system's canonical
// name (`hostname --fqdn`: /etc/hosts, then DNS), or the kernel's name when that fails or takes
// longer than a moment (no DNS on the node). A name with a dot already is used as it is.
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';

const WAIT_MS = 2000;

export function fullHostname(): Promise<string> {
  const own = hostname();
  if (own.includes('.')) return Promise.resolve(own);
  return new Promise((resolve) => {
    execFile('hostname', ['--fqdn'], { timeout: WAIT_MS, encoding: 'utf8' }, (err, stdout) => {
      const name = err ? '' : stdout.trim();
      // a canonical name of the same host only: never "localhost" or an unrelated alias
      resolve(/^[A-Za-z0-9.-]+$/.test(name) && name.split('.')[0] === own ? name : own);
    });
  });
}
