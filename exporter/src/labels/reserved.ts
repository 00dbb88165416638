// Label values jobio reserves, defined once. A real job id, user name or mount never starts with
// an underscore in practice; these do, so they cannot be mistaken for one.

/** The load of everything without its own series (jobs beyond max-jobs, malformed ids, surplus mounts or clients). */
export const OTHER = '_other';
/** System accounts (uid ≤ system-uid-max), one series for all of them. */
export const SYSTEM = '_system';
/** I/O that belongs to no job (a login node, a format without %j, a process outside any job). */
export const NONE = '_none';
/** A user that the entry does not name (a jobid_name format without %u). */
export const UNKNOWN = '_unknown';
/** Node-wide I/O of a node that several jobs shared in the interval: no single job can claim it. */
export const SHARED = '_shared';
