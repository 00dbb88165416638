// HTTP basic authentication against bcrypt hashes, as the exporter-toolkit does it. bcrypt is
// deliberately slow (tens of ms), so successful checks are cached by a SHA-256 of user and password;
// failures are never cached. Hash comparison is bcrypt's, and an unknown user is compared against a
// dummy hash of the same cost as the configured ones, so response time does not reveal which user
// names exist.
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { RequestHandler } from 'express';

const CACHE_LIMIT = 1024;

/** The bcrypt cost ("$2y$10$…" → 10) of the most expensive configured hash. */
export function highestCost(users: ReadonlyMap<string, string>): number {
  let cost = 4;
  for (const hash of users.values()) cost = Math.max(cost, Number(hash.slice(4, 6)) || 4);
  return cost;
}

export function basicAuth(users: ReadonlyMap<string, string>): RequestHandler {
  const verified = new Set<string>();
  // Made once at start-up (tens of ms at cost 10): a password nobody knows, at the users' cost.
  const dummyHash = bcrypt.hashSync(createHash('sha256').update(String(Math.random())).digest('hex'), highestCost(users));
  return (req, res, next) => {
    const deny = (): void => {
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
    bcrypt
      .compare(password, hash ?? dummyHash)
      .then((ok) => {
        if (!ok || hash === undefined) return deny();
        if (verified.size >= CACHE_LIMIT) verified.clear();
        verified.add(cacheKey);
        next();
      })
      .catch(() => deny());
  };
}
