/*
 * Network peers: which address socket I/O goes to, for the per-address `network` records. A peer is
 * the host at the other end: an IPv4 or IPv6 address (no port, as Mistral's `address`; an IPv4
 * address mapped into IPv6 is the IPv4 address), or for a Unix socket "unix:PATH" (the path of the
 * listening socket, whichever side this process is; "unix:@NAME" for an abstract name) and "unix"
 * for an unnamed pair. Other address families have no peer: their I/O counts on "[network]".
 *
 * An address is reduced to a 64-bit key (a hash of its family and bytes); the first JOBIO_NET_PEERS
 * keys of a process get a pseudo mount of their own (mounts.c), and the name is formatted once, when
 * the entry is claimed. Later peers fold into "[network]" and each time that happens is counted
 * (jobio_net_folded): connects, accepts, sockets first met later, and datagrams with an address.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "process/net_peers.h"

#include "process/mounts.h"

static uint64_t jobio_net_folds;

enum { JOBIO_PEER_NONE = 0, JOBIO_PEER_V4 = 4, JOBIO_PEER_V6 = 6, JOBIO_PEER_UNIX = 1, JOBIO_PEER_UNNAMED = 2 };

/* A peer address reduced to its kind and bytes (pointing into the sockaddr). */
struct jobio_peer {
  int kind;
  const unsigned char *bytes;
  size_t len;
};

static struct jobio_peer jobio_peer_of(const struct sockaddr *a, socklen_t len) {
  struct jobio_peer p = {JOBIO_PEER_NONE, NULL, 0};
  if (!a || len < (socklen_t)sizeof(sa_family_t)) return p;
  switch (a->sa_family) {
    case AF_INET:
      if (len < (socklen_t)sizeof(struct sockaddr_in)) return p;
      p = (struct jobio_peer){JOBIO_PEER_V4, (const unsigned char *)&((const struct sockaddr_in *)(const void *)a)->sin_addr, 4};
      return p;
    case AF_INET6: {
      if (len < (socklen_t)sizeof(struct sockaddr_in6)) return p;
      const struct in6_addr *v6 = &((const struct sockaddr_in6 *)(const void *)a)->sin6_addr;
      if (IN6_IS_ADDR_V4MAPPED(v6)) return (struct jobio_peer){JOBIO_PEER_V4, v6->s6_addr + 12, 4};
      return (struct jobio_peer){JOBIO_PEER_V6, v6->s6_addr, 16};
    }
    case AF_UNIX: {
      const size_t off = offsetof(struct sockaddr_un, sun_path);
      const struct sockaddr_un *u = (const struct sockaddr_un *)(const void *)a;
      size_t n = (size_t)len > off ? (size_t)len - off : 0;
      if (n > sizeof u->sun_path) n = sizeof u->sun_path;
      if (n > 0 && u->sun_path[0] != 0) n = strnlen(u->sun_path, n); /* a path: up to its NUL */
      if (n == 0) return (struct jobio_peer){JOBIO_PEER_UNNAMED, NULL, 0};
      return (struct jobio_peer){JOBIO_PEER_UNIX, (const unsigned char *)u->sun_path, n};
    }
    default: return p;
  }
}

/* FNV-1a over the kind and the bytes; never 0 (0 marks a free entry). */
static uint64_t jobio_peer_key(const struct jobio_peer *p) {
  uint64_t h = 1469598103934665603ull;
  h = (h ^ (uint64_t)p->kind) * 1099511628211ull;
  for (size_t i = 0; i < p->len; i++) h = (h ^ p->bytes[i]) * 1099511628211ull;
  return h ? h : 1;
}

static size_t jobio_put(char *buf, size_t at, size_t cap, const char *s) {
  while (*s && at + 1 < cap) buf[at++] = *s++;
  buf[at] = 0;
  return at;
}

/*
 * The address as text. A Unix name may hold any byte: others than printable ASCII become '?', and
 * then (or when a path starts with '@', like the abstract names) the key follows in hex, so two peers
 * never share a name.
 */
static void jobio_peer_name(const void *arg, char *buf, size_t cap) {
  const struct jobio_peer *p = arg;
  buf[0] = 0;
  switch (p->kind) {
    case JOBIO_PEER_V4: inet_ntop(AF_INET, p->bytes, buf, (socklen_t)cap); return;
    case JOBIO_PEER_V6: inet_ntop(AF_INET6, p->bytes, buf, (socklen_t)cap); return;
    case JOBIO_PEER_UNNAMED: jobio_put(buf, 0, cap, "unix"); return;
    default: break;
  }
  size_t at = jobio_put(buf, 0, cap, "unix:");
  int unclear = p->bytes[0] == '@';
  for (size_t i = 0; i < p->len && at + 1 < cap; i++) {
    unsigned char ch = p->bytes[i];
    if (i == 0 && ch == 0) ch = '@'; /* abstract name */
    else if (ch < 0x20 || ch > 0x7e) ch = '?', unclear = 1;
    buf[at++] = (char)ch;
  }
  buf[at] = 0;
  if (unclear) {
    uint64_t k = jobio_peer_key(p);
    char hex[18];
    hex[0] = '#';
    for (int i = 0; i < 16; i++) hex[1 + i] = "0123456789abcdef"[(k >> (60 - 4 * i)) & 0xf];
    hex[17] = 0;
    jobio_put(buf, at, cap, hex);
  }
}

static int jobio_peer_slot_of(const struct jobio_peer *p) {
  int slot = p->kind == JOBIO_PEER_NONE ? -1 : jobio_peer_slot(jobio_peer_key(p), jobio_peer_name, p);
  if (slot >= 0) return slot;
  if (p->kind != JOBIO_PEER_NONE) __atomic_add_fetch(&jobio_net_folds, 1, __ATOMIC_RELAXED);
  return jobio_network_slot();
}

int jobio_net_addr_slot(const struct sockaddr *a, socklen_t len) {
  struct jobio_peer p = jobio_peer_of(a, len);
  return jobio_peer_slot_of(&p);
}

/*
 * A socket met without its peer's address (accepted, inherited, a socketpair): asked of the kernel,
 * once per descriptor. For a Unix socket the peer's name if it has one, else this side's (an
 * accepted connection: the listening path); a socket with no peer (not connected) counts on
 * "[network]".
 */
int jobio_net_fd_slot(int fd) {
  int saved = errno;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int slot;
  if (syscall(SYS_getpeername, fd, (struct sockaddr *)&ss, &len) != 0) {
    slot = jobio_network_slot();
  } else {
    struct jobio_peer p = jobio_peer_of((struct sockaddr *)&ss, len);
    struct sockaddr_storage own;
    socklen_t own_len = sizeof own;
    if (p.kind == JOBIO_PEER_UNNAMED && syscall(SYS_getsockname, fd, (struct sockaddr *)&own, &own_len) == 0) {
      struct jobio_peer mine = jobio_peer_of((struct sockaddr *)&own, own_len);
      if (mine.kind == JOBIO_PEER_UNIX) p = mine;
    }
    slot = jobio_peer_slot_of(&p);
  }
  errno = saved;
  return slot;
}

uint64_t jobio_net_folded(void) { return __atomic_load_n(&jobio_net_folds, __ATOMIC_RELAXED); }

/* A fork child counts from zero, like every other figure (the peer entries stay: same names). */
void jobio_net_after_fork(void) { jobio_net_folds = 0; }
