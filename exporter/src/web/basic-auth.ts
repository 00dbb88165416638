// HTTP basic authentication against bcrypt hashes, as the exporter-toolkit does it. bcrypt is
// deliberately slow (~0.1 s at cost 10), so:
//   - successful checks are cached by a SHA-256 of user and password: a scraper pays bcrypt once,
//     not every scrape; failures are never cached;
//   - the checks run on worker threads with a bounded queue (password-checker.ts): a flood of wrong
//     passwords gets 429 beyond the queue instead of stalling the event loop that serves scrapes, and
//     one client address holds at most a quarter of the queue, served round-robin with the others;
//   - an unknown user is checked against the costliest configured hash (and refused whatever the
//     result), so response time does not reveal which user names exist.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { PasswordChecker } from './password-checker.js';
import type { WebMetrics } from './web-metrics.js';

const CACHE_LIMIT = 1024;

/** The bcrypt cost of a hash ("$2y$10$…" → 10). */
function costOf(hash: string): number {
  return Number(hash.slice(4, 6)) || 4;
}

/** The bcrypt cost of the most expensive configured hash. */
export function highestCost(users: ReadonlyMap<string, string>): number {
  return Math.max(4, ...[...users.values()].map(costOf));
}

/** The configured hash an unknown user is checked against: as slow as the slowest real one. */
function decoyHash(users: ReadonlyMap<string, string>): string | undefined {
  const cost = highestCost(users);
  return [...users.values()].find((h) => costOf(h) === cost);
}

export function basicAuth(users: ReadonlyMap<string, string>, checker: PasswordChecker, metrics: WebMetrics): RequestHandler {
  const verified = new Set<string>();
  const decoy = decoyHash(users);
  return (req, res, next): void => {
    const deny = (): void => {
      metrics.authFailures.inc({ reason: 'bad_credentials' });
      res.set('WWW-Authenticate', 'Basic realm="jobio", charset="UTF-8"').status(401).type('text/plain').send('Unauthorized\n');
    };
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match?.[1]) return deny();
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return deny();
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const cacheKey = createHash('sha256').update(user).update('\0').update(password).digest('hex');
    if (verified.has(cacheKey)) return next();
    const hash = users.get(user);
    const against = hash ?? decoy;
    if (against === undefined) return deny();
    checker.check(password, against, req.socket.remoteAddress ?? '').then(
      (ok) => {
        if (ok === 'busy') {
          metrics.authFailures.inc({ reason: 'busy' });
          res.set('Retry-After', '1').status(429).type('text/plain').send('Too many login attempts being checked, retry later\n');
          return;
        }
        if (!ok || hash === undefined) return deny();
        if (verified.size >= CACHE_LIMIT) verified.clear();
        verified.add(cacheKey);
        next();
      },
      () => deny(),
    );
  };
}
