// What the soak's hostile users run besides the frame tool's forgers: idle connections held on the
// profiler socket (up to and past their uid's share), and HTTP clients pipelining GET /metrics that
// never read an answer. Small Python programs, run as the hostile uids by the soak.
import { existsSync } from 'node:fs';
import { requireBinary } from '../../test/helpers/binaries.js';

/** A Python every user may run (a pyenv under /root is not readable by the test users). */
export function python(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : requireBinary('python3');
}

/** Holds `count` connections to the profiler socket open (the refused ones too) until `stop` exists. */
export const HOLD_CONNECTIONS = `
import os, socket, sys, time
path, count, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
held = []
for i in range(count):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        c.connect(path)
    except OSError:
        pass
    held.append(c)
print(len(held), flush=True)
while not os.path.exists(stop):
    time.sleep(0.5)
`;

/**
 * Until \`stop\` exists: opens \`connections\` TCP connections from the source address \`source\`, writes
 * \`requests\` pipelined GET /metrics on each, never reads, closes them after 10 s; prints each round.
 */
export const PIPELINE_NO_READ = `
import os, socket, sys, time
port, source, connections, requests, stop = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
burst = b"GET /metrics HTTP/1.1\\r\\nHost: soak\\r\\nAccept-Encoding: gzip\\r\\n\\r\\n" * requests
rounds = 0
while not os.path.exists(stop):
    open_now = []
    for i in range(connections):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((source, 0))
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            s.send(burst)
        except OSError:
            pass
        open_now.append(s)
    time.sleep(10)
    for s in open_now:
        s.close()
    rounds += 1
    print(rounds, flush=True)
`;
