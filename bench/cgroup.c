// The `C group-by` contender of `npm run bench` (bench/run.mjs compiles it with the machine's C compiler, `cc -O2`):
// what a native reader of these files costs here. It does what `node group-by` and Python's csv do: per file, the
// rows counted and Duration(us) summed by Type, one thread a file, and prints the groups as JSON ([{type: [count,
// sum]}, …], one object a file, in the order given). Each record is split by a scalar state machine over the bytes
// (quoted cells, `""` escapes, commas and line feeds inside quotes, CRLF), up to the Duration column; the rest of
// the record is passed over by quotes and line feeds only, found with memchr (vectorised in the C library: SSE2/AVX2
// with glibc on x86-64). A record whose cells stop before the Duration column is skipped. Nothing else is checked.
// Portable C with no SIMD of its own: a floor a native reader reaches with little effort, not the best one (the
// cells before Duration are still split byte by byte).

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (4 << 20)
#define SLOTS 4096
#define MAX_KEY 256

typedef struct {
  char key[MAX_KEY];
  int len;
  long count;
  double sum;
} Group;

typedef struct {
  const char *path;
  Group *groups;
  int failed;
} Job;

static unsigned hash(const char *s, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static int add(Group *groups, const char *key, int n, double us) {
  if (n > MAX_KEY) n = MAX_KEY;
  for (unsigned i = hash(key, n) & (SLOTS - 1), probes = 0; probes < SLOTS; i = (i + 1) & (SLOTS - 1), probes++) {
    Group *g = &groups[i];
    if (g->len == 0) {
      memcpy(g->key, key, n);
      g->len = n;
    }
    if (g->len == n && memcmp(g->key, key, n) == 0) {
      g->count++;
      g->sum += us;
      return 0;
    }
  }
  return -1;
}

// A plain decimal (digits, one dot) as the JavaScript readers take it: its digits over a power of ten; else strtod.
static double number(const char *s, int n) {
  double d = 0, scale = 1;
  int dot = 0;
  for (int i = 0; i < n; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      d = d * 10 + (c - '0');
      if (dot) scale *= 10;
    } else if (c == '.' && !dot) dot = 1;
    else {
      char tmp[64];
      int m = n < 63 ? n : 63;
      memcpy(tmp, s, m);
      tmp[m] = 0;
      return strtod(tmp, NULL);
    }
  }
  return d / scale;
}

// The header's cells (the first record): the index of Type and of Duration(us).
static void header(const char *p, const char *end, int *ti, int *di) {
  if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
  int col = 0;
  while (p <= end) {
    const char *e = p;
    while (e < end && *e != ',') e++;
    const char *s = p, *t = e;
    while (s < t && (*s == ' ' || *s == '"')) s++;
    while (t > s && (t[-1] == ' ' || t[-1] == '"' || t[-1] == '\r')) t--;
    if (t - s == 4 && memcmp(s, "Type", 4) == 0) *ti = col;
    if (t - s == 12 && memcmp(s, "Duration(us)", 12) == 0) *di = col;
    col++;
    p = e + 1;
  }
}

/** The Type and Duration(us) cells of a record, as they are found. */
typedef struct {
  int ti, di;
  const char *ts, *ds;
  int tl, dl;
} Cells;

/** Cell `col`, bytes [s, e) (a CR before its end dropped), kept when it is the Type or the Duration(us) cell. */
static void take(Cells *c, int col, const char *s, const char *e) {
  if (e > s && e[-1] == '\r') e--;
  if (col == c->ti) {
    c->ts = s;
    c->tl = (int)(e - s);
  }
  if (col == c->di) {
    c->ds = s;
    c->dl = (int)(e - s);
  }
}

static void *run(void *arg) {
  Job *job = arg;
  int fd = open(job->path, O_RDONLY);
  if (fd < 0) {
    job->failed = 1;
    return NULL;
  }
  size_t cap = 2 * CHUNK;
  char *buf = malloc(cap);
  size_t carry = 0;
  int ti = -1, di = -1, first = 1;
  for (;;) {
    if (carry + CHUNK > cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
    ssize_t got = read(fd, buf + carry, CHUNK);
    if (got < 0) {
      job->failed = 1;
      break;
    }
    size_t len = carry + (size_t)got, p = 0;
    int last = got == 0;
    for (;;) {
      // One record from p: its cells up to the Duration column, then on to its line feed outside quotes.
      size_t q = p, cell = p;
      int col = 0, quotes = 0, ended = 0;
      Cells cells = {ti, di, NULL, NULL, 0, 0};
      while (q < len) {
        char c = buf[q];
        if (c == '"') {
          quotes = !quotes;
        } else if (!quotes && (c == ',' || c == '\n')) {
          if (!first && col <= di) take(&cells, col, buf + cell, buf + q);
          col++;
          cell = q + 1;
          if (c == '\n') {
            ended = 1;
            break;
          }
          if (!first && col > di) {
            // Past the Duration column: on to the line feed outside quotes.
            // Past the Duration column: on to the line feed outside quotes, found with memchr (the C library's
            // vectorised search): the next line feed, then the quotes before it.
            q++;
            for (;;) {
              const char *nl = memchr(buf + q, '\n', len - q);
              if (nl == NULL) {
                q = len;
                break;
              }
              size_t e = (size_t)(nl - buf);
              for (const char *qt; (qt = memchr(buf + q, '"', e - q)) != NULL; q = (size_t)(qt - buf) + 1) quotes = !quotes;
              q = e;
              if (!quotes) break;
              q++;
            }
            ended = q < len;
            break;
          }
        }
        q++;
      }
      if (!ended && !(last && q > p)) break;
      // The last record of a file that does not end in a line feed: its last cell ends with the data.
      if (!ended && !first && col <= di) take(&cells, col, buf + cell, buf + q);
      if (first) {
        header(buf + p, buf + q, &ti, &di);
        first = 0;
        if (ti < 0 || di < 0) {
          job->failed = 1;
          close(fd);
          free(buf);
          return NULL;
        }
      } else if (cells.ds != NULL && cells.ts != NULL) {
        const char *ts = cells.ts, *ds = cells.ds;
        int tl = cells.tl, dl = cells.dl;
        char key[MAX_KEY];
        int n = 0;
        if (tl >= 2 && ts[0] == '"') {
          // A quoted Type: its quotes off, `""` as `"`.
          for (int i = 1; i < tl - 1 && n < MAX_KEY; i++) {
            key[n++] = ts[i];
            if (ts[i] == '"') i++;
          }
        } else {
          n = tl < MAX_KEY ? tl : MAX_KEY;
          memcpy(key, ts, n);
        }
        if (add(job->groups, key, n, number(ds, dl)) < 0) job->failed = 1;
      }
      p = q + 1;
      if (p >= len) break;
    }
    if (last) break;
    carry = p < len ? len - p : 0;
    memmove(buf, buf + (len - carry), carry);
  }
  close(fd);
  free(buf);
  return NULL;
}

static void json_string(const char *s, int n) {
  putchar('"');
  for (int i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

int main(int argc, char **argv) {
  int n = argc - 1;
  Job *jobs = calloc(n, sizeof(Job));
  pthread_t *threads = calloc(n, sizeof(pthread_t));
  for (int i = 0; i < n; i++) {
    jobs[i].path = argv[i + 1];
    jobs[i].groups = calloc(SLOTS, sizeof(Group));
    pthread_create(&threads[i], NULL, run, &jobs[i]);
  }
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
  putchar('[');
  for (int i = 0; i < n; i++) {
    if (jobs[i].failed) {
      fprintf(stderr, "cgroup: %s: not read (no Type or Duration(us) column, or more than %d types)\n", jobs[i].path, SLOTS);
      return 1;
    }
    printf(i ? ",{" : "{");
    int k = 0;
    for (int s = 0; s < SLOTS; s++) {
      Group *g = &jobs[i].groups[s];
      if (g->len == 0) continue;
      if (k++) putchar(',');
      json_string(g->key, g->len);
      printf(":[%ld,%.17g]", g->count, g->sum);
    }
    putchar('}');
  }
  printf("]\n");
  return 0;
}
