/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The per-process statistics area (struct cpt_stats_area in cptabi.h): a
 * file in stats_dir mapped shared, whose counters both halves update in
 * place, so cptstat sees them live and a process that never needed Go (all
 * its operations on the CPU path) is seen too. Created lazily: loading and
 * configuring the provider create nothing, and a forked child makes its own
 * at its first counted operation rather than writing into its parent's.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "cptprov.h"

static pthread_mutex_t area_mu = PTHREAD_MUTEX_INITIALIZER;
static char *area_dir; /* the first configured stats_dir of the process */
static struct cpt_stats_area *_Atomic area;
static int area_failed; /* do not retry on every operation */

static void area_child(void)
{
    struct cpt_stats_area *a = atomic_load(&area);

    /* The parent's mapping stays the parent's: unmap it here. */
    pthread_mutex_init(&area_mu, NULL);
    atomic_store(&area, NULL);
    area_failed = 0;
    if (a != NULL)
        munmap(a, sizeof(*a));
}

static void area_atfork(void)
{
    pthread_atfork(NULL, NULL, area_child);
}

void cptprov_stats_configure(const char *dir)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    if (dir == NULL)
        return;
    pthread_once(&once, area_atfork);
    pthread_mutex_lock(&area_mu);
    if (area_dir == NULL)
        area_dir = strdup(dir);
    pthread_mutex_unlock(&area_mu);
}

/*
 * Creation runs under area_mu, possibly on a 32 KiB ASYNC job stack: its
 * buffers are static rather than locals.
 */
static char stat_buf[1024], area_path[4096 + 64];

/* Field 22 of /proc/self/stat, after the parenthesised command name. */
static uint64_t start_time(void)
{
    char *buf = stat_buf, *p;
    unsigned long long v = 0;
    FILE *f = fopen("/proc/self/stat", "re");
    size_t n;

    if (f == NULL)
        return 0;
    n = fread(buf, 1, sizeof(stat_buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if ((p = strrchr(buf, ')')) == NULL)
        return 0;
    /* state is field 3; starttime is 19 fields further */
    for (int field = 2; field < 22 && p != NULL; field++)
        p = strchr(p + 1, ' ');
    if (p != NULL)
        sscanf(p + 1, "%llu", &v);
    return v;
}

static struct cpt_stats_area *area_create(const char *dir)
{
    char *path = area_path;
    struct cpt_stats_area *a;
    int fd;

    snprintf(path, sizeof(area_path), "%s/cptprov-%ld.stats", dir, (long)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return NULL;
    if (ftruncate(fd, sizeof(*a)) != 0) {
        close(fd);
        unlink(path);
        return NULL;
    }
    a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (a == MAP_FAILED) {
        unlink(path);
        return NULL;
    }
    a->version = CPT_STATS_VERSION;
    a->size = sizeof(*a);
    a->pid = getpid();
    a->start_time = start_time();
    atomic_thread_fence(memory_order_release);
    memcpy(a->magic, CPT_STATS_MAGIC, sizeof(CPT_STATS_MAGIC));
    return a;
}

struct cpt_stats_area *cptprov_stats_area(void)
{
    struct cpt_stats_area *a = atomic_load_explicit(&area, memory_order_acquire);

    if (a != NULL || area_dir == NULL || area_failed)
        return a;
    pthread_mutex_lock(&area_mu);
    if ((a = atomic_load(&area)) == NULL && !area_failed) {
        if ((a = area_create(area_dir)) == NULL)
            area_failed = 1;
        atomic_store_explicit(&area, a, memory_order_release);
    }
    pthread_mutex_unlock(&area_mu);
    return a;
}

void cptprov_cpu_flush(struct cpt_cpu_tally *t, int alg)
{
    struct cpt_stats_area *a;

    if (t->ops != 0 && alg >= 0 && alg < CPT_MAX_ALGS && (a = cptprov_stats_area()) != NULL) {
        atomic_fetch_add_explicit(&a->cpu[alg].ops, t->ops, memory_order_relaxed);
        atomic_fetch_add_explicit(&a->cpu[alg].bytes, t->bytes, memory_order_relaxed);
    }
    t->ops = t->bytes = 0;
}
