// A fake libnvidia-ml.so.1 for GPU-less tests, written from NVML's documented ABI (function
// names, nvmlReturn_t codes, struct layouts): it is not NVIDIA code and reads no hardware.
//
// nvmlInit_v2 reads the file named by JOBIO_FAKE_NVML_CONFIG, `key=value` per line:
//   gpus=N                    device count (0..8, default 0)
//   init_error=CODE           nvmlInit_v2 returns CODE
//   error=FUNCTION:CODE       that function returns CODE on every device
//   hang=FUNCTION             that function sleeps hang_ms (0 or unset: forever) before answering
//   hang_ms=MS
//   proc_stride=24|32         process entry size written (32 mimics R535 drivers)
//   gpu<i>.uuid= .name= .energy_mj= .util= .mem_total= .mem_used= .temp= .power_mw=
//   gpu<i>.pcie_tx_kbps= .pcie_rx_kbps= .pids=P1,P2,…
//   gpu<i>.energy_mj_step=     the energy counter grows by this much at every read (a GPU drawing power
//                              between two samples: each sample's increment is known exactly)
// Unset values have deterministic defaults derived from the index.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_GPUS 8
#define MAX_PIDS 64

typedef int nvmlReturn_t;
enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, INSUFFICIENT_SIZE = 7 };

typedef struct {
  unsigned gpu, memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

struct fake_gpu {
  char uuid[96], name[96];
  unsigned long long energy_mj, energy_mj_step, mem_total, mem_used;
  unsigned util, temp, power_mw, pcie_tx, pcie_rx;
  unsigned pids[MAX_PIDS];
  unsigned npids;
};

static struct {
  int initialised;
  unsigned gpus;
  int init_error;
  char error_call[128];
  int error_code;
  char hang_call[128];
  long hang_ms;
  unsigned stride;
  struct fake_gpu gpu[MAX_GPUS];
} fake;

static void defaults(void) {
  memset(&fake, 0, sizeof fake);
  fake.stride = 24;
  for (unsigned i = 0; i < MAX_GPUS; i++) {
    struct fake_gpu *g = &fake.gpu[i];
    snprintf(g->uuid, sizeof g->uuid, "GPU-00000000-0000-0000-0000-00000000000%u", i);
    snprintf(g->name, sizeof g->name, "Fake GPU %u", i);
    g->energy_mj = 1000000ULL * (i + 1);
    g->mem_total = 80ULL << 30;
    g->mem_used = (unsigned long long)(i + 1) << 30;
    g->util = 10 * (i + 1);
    g->temp = 40 + i;
    g->power_mw = 100000 + 1000 * i;
    g->pcie_tx = 1024;
    g->pcie_rx = 2048;
  }
}

static void set_gpu(struct fake_gpu *g, const char *key, const char *value) {
  unsigned long long n = strtoull(value, NULL, 10);
  if (!strcmp(key, "uuid")) snprintf(g->uuid, sizeof g->uuid, "%s", value);
  else if (!strcmp(key, "name")) snprintf(g->name, sizeof g->name, "%s", value);
  else if (!strcmp(key, "energy_mj")) g->energy_mj = n;
  else if (!strcmp(key, "energy_mj_step")) g->energy_mj_step = n;
  else if (!strcmp(key, "mem_total")) g->mem_total = n;
  else if (!strcmp(key, "mem_used")) g->mem_used = n;
  else if (!strcmp(key, "util")) g->util = (unsigned)n;
  else if (!strcmp(key, "temp")) g->temp = (unsigned)n;
  else if (!strcmp(key, "power_mw")) g->power_mw = (unsigned)n;
  else if (!strcmp(key, "pcie_tx_kbps")) g->pcie_tx = (unsigned)n;
  else if (!strcmp(key, "pcie_rx_kbps")) g->pcie_rx = (unsigned)n;
  else if (!strcmp(key, "pids")) {
    g->npids = 0;
    for (const char *p = value; *p && g->npids < MAX_PIDS;) {
      char *end;
      unsigned long pid = strtoul(p, &end, 10);
      if (end == p) break;
      g->pids[g->npids++] = (unsigned)pid;
      p = *end == ',' ? end + 1 : end;
    }
  }
}

static void load_config(void) {
  defaults();
  const char *path = getenv("JOBIO_FAKE_NVML_CONFIG");
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    char *eq = strchr(line, '=');
    if (!eq || line[0] == '#') continue;
    *eq = 0;
    const char *key = line, *value = eq + 1;
    unsigned idx;
    char field[64];
    if (!strcmp(key, "gpus")) fake.gpus = (unsigned)atoi(value) > MAX_GPUS ? MAX_GPUS : (unsigned)atoi(value);
    else if (!strcmp(key, "init_error")) fake.init_error = atoi(value);
    else if (!strcmp(key, "hang")) snprintf(fake.hang_call, sizeof fake.hang_call, "%s", value);
    else if (!strcmp(key, "hang_ms")) fake.hang_ms = atol(value);
    else if (!strcmp(key, "proc_stride")) fake.stride = atoi(value) == 32 ? 32 : 24;
    else if (!strcmp(key, "error")) {
      const char *colon = strrchr(value, ':');
      if (colon) {
        snprintf(fake.error_call, sizeof fake.error_call, "%.*s", (int)(colon - value), value);
        fake.error_code = atoi(colon + 1);
      }
    } else if (sscanf(key, "gpu%u.%63s", &idx, field) == 2 && idx < MAX_GPUS) set_gpu(&fake.gpu[idx], field, value);
  }
  fclose(f);
}

/** Common entry of every device call: hang and injected error as configured. */
static nvmlReturn_t enter(const char *call) {
  if (!fake.initialised) return UNINITIALIZED;
  if (fake.hang_call[0] && !strcmp(call, fake.hang_call)) {
    do {
      long ms = fake.hang_ms > 0 ? fake.hang_ms : 3600000;
      struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
      nanosleep(&ts, NULL);
    } while (fake.hang_ms <= 0);
  }
  if (fake.error_call[0] && !strcmp(call, fake.error_call)) return fake.error_code;
  return OK;
}

static struct fake_gpu *gpu_of(void *device) {
  struct fake_gpu *g = device;
  return g >= fake.gpu && g < fake.gpu + fake.gpus ? g : NULL;
}

#define DEVICE_CALL(name)                  \
  nvmlReturn_t rc = enter(name);           \
  if (rc != OK) return rc;                 \
  struct fake_gpu *g = gpu_of(device);     \
  if (!g) return INVALID_ARGUMENT

EXPORT nvmlReturn_t nvmlInit_v2(void) {
  load_config();
  if (fake.init_error) return fake.init_error;
  fake.initialised = 1;
  return OK;
}

EXPORT nvmlReturn_t nvmlShutdown(void) {
  fake.initialised = 0;
  return OK;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t rc) {
  switch (rc) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    case 999: return "Unknown Error";
    default: return "Unknown Error";
  }
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
  nvmlReturn_t rc = enter("nvmlDeviceGetCount_v2");
  if (rc != OK) return rc;
  if (!count) return INVALID_ARGUMENT;
  *count = fake.gpus;
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, void **device) {
  nvmlReturn_t rc = enter("nvmlDeviceGetHandleByIndex_v2");
  if (rc != OK) return rc;
  if (index >= fake.gpus || !device) return INVALID_ARGUMENT;
  *device = &fake.gpu[index];
  return OK;
}

static nvmlReturn_t copy_text(const char *text, char *out, unsigned len) {
  if (!out) return INVALID_ARGUMENT;
  if (strlen(text) + 1 > len) return INSUFFICIENT_SIZE;
  memcpy(out, text, strlen(text) + 1);
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(void *device, char *uuid, unsigned len) {
  DEVICE_CALL("nvmlDeviceGetUUID");
  return copy_text(g->uuid, uuid, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetName(void *device, char *name, unsigned len) {
  DEVICE_CALL("nvmlDeviceGetName");
  return copy_text(g->name, name, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj) {
  DEVICE_CALL("nvmlDeviceGetTotalEnergyConsumption");
  g->energy_mj += g->energy_mj_step;
  *mj = g->energy_mj;
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(void *device, int counter, unsigned *kbps) {
  DEVICE_CALL("nvmlDeviceGetPcieThroughput");
  if (counter != 0 && counter != 1) return INVALID_ARGUMENT;
  *kbps = counter == 0 ? g->pcie_tx : g->pcie_rx;
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(void *device, nvmlUtilization_t *u) {
  DEVICE_CALL("nvmlDeviceGetUtilizationRates");
  u->gpu = g->util;
  u->memory = g->util / 2;
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(void *device, nvmlMemory_t *m) {
  DEVICE_CALL("nvmlDeviceGetMemoryInfo");
  m->total = g->mem_total;
  m->used = g->mem_used;
  m->free = g->mem_total - g->mem_used;
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(void *device, int sensor, unsigned *celsius) {
  DEVICE_CALL("nvmlDeviceGetTemperature");
  if (sensor != 0) return INVALID_ARGUMENT;
  *celsius = g->temp;
  return OK;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(void *device, unsigned *mw) {
  DEVICE_CALL("nvmlDeviceGetPowerUsage");
  *mw = g->power_mw;
  return OK;
}

// Two-call protocol of the real function; entries are pid@0, usedGpuMemory@8, GI/CI ids@16/20
// (24 bytes), plus a u64 at 24 when proc_stride=32 (the R535 layout).
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(void *device, unsigned *count, void *infos) {
  DEVICE_CALL("nvmlDeviceGetComputeRunningProcesses_v3");
  if (!count) return INVALID_ARGUMENT;
  if (*count < g->npids) {
    *count = g->npids;
    return g->npids == 0 ? OK : INSUFFICIENT_SIZE;
  }
  *count = g->npids;
  for (unsigned i = 0; i < g->npids; i++) {
    unsigned char *e = (unsigned char *)infos + (size_t)i * fake.stride;
    unsigned long long mem = (256ULL << 20) * (i + 1), cc = 0;
    unsigned ids = 0xFFFFFFFFu;
    memcpy(e, &g->pids[i], 4);
    memset(e + 4, 0, 4);
    memcpy(e + 8, &mem, 8);
    memcpy(e + 16, &ids, 4);
    memcpy(e + 20, &ids, 4);
    if (fake.stride == 32) memcpy(e + 24, &cc, 8);
  }
  return OK;
}
