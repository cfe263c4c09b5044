/*
 * What run.c (../shared/reference/llama2.c, built unchanged) needs from an OS, on a
 * bare-metal board (its hooks: llama2c_board.h):
 *  - its checkpoint and tokenizer are files served from memory (the blobs
 *    llama2c_files.S embeds); mmap returns them in place;
 *  - malloc takes from the board's L2 and NMS regions (run.c frees nothing before it
 *    exits); stdout is the console;
 *  - clock_gettime reads the board's counter as a 1 MHz clock, so run.c's "achieved
 *    tok/s" is 10^6 divided by counts a token.
 * main() runs run.c's main with the arguments below, marks run.c's first and last clock
 * readings for the board (they enclose its second token to its last: the instruction
 * counting plugin's region on QEMU) and reports the counts between them per token. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "llama2c_board.h"

extern const unsigned char tsr_llama2c_model[], tsr_llama2c_model_end[];
extern const unsigned char tsr_llama2c_tokenizer[], tsr_llama2c_tokenizer_end[];
int llama2c_main(int argc, char *argv[]);

/* The console. */
static int console_put(char c, FILE *file)
{
    (void)file;
    char s[2] = {c, 0};
    tsr_llama2c_puts(s);
    return (unsigned char)c;
}
static FILE console = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &console;
FILE *const stderr = &console;
FILE *const stdin = &console;

void _exit(int status)
{
    tsr_llama2c_exit(status);
}

/* The heap: the board's L2 and NMS regions, one after the other, never given back. */
static uint8_t *heap_next, *heap_end;
static int heap_region = TSR_REGION_L2;

void *malloc(size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    while (heap_next == NULL || (size_t)(heap_end - heap_next) < size) {
        if (heap_region > TSR_REGION_NMS) {
            errno = ENOMEM;
            return NULL;
        }
        const tsr_hal_region *r = &tsr_llama2c_board()->regions[heap_region++];
        heap_next = (uint8_t *)r->base;
        heap_end = heap_next + r->size;
    }
    void *p = heap_next;
    heap_next += size;
    return p;
}

void *calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = malloc(count * size);
    if (p) {
        memset(p, 0, count * size);
    }
    return p;
}

void free(void *p)
{
    (void)p;
}

/* The two files. */
struct memory_file {
    const char *name;
    const unsigned char *data, *end;
};
static struct memory_file files[] = {
    {"model.bin", tsr_llama2c_model, tsr_llama2c_model_end},
    {"tokenizer.bin", tsr_llama2c_tokenizer, tsr_llama2c_tokenizer_end},
};
struct open_file {
    struct __file base; /* unused: run.c hands the FILE only to the functions below */
    const struct memory_file *file;
    long at;
};
static struct open_file open_files[2];

static int find(const char *name)
{
    for (int i = 0; i < 2; ++i) {
        if (strcmp(name, files[i].name) == 0) {
            return i;
        }
    }
    errno = ENOENT;
    return -1;
}

FILE *fopen(const char *name, const char *mode)
{
    (void)mode;
    const int i = find(name);
    if (i < 0) {
        return NULL;
    }
    open_files[i].file = &files[i];
    open_files[i].at = 0;
    return &open_files[i].base;
}

size_t fread(void *to, size_t size, size_t count, FILE *stream)
{
    struct open_file *f = (struct open_file *)stream;
    const long left = (long)(f->file->end - f->file->data) - f->at;
    size_t n = size ? (size_t)left / size : 0;
    if (n > count) {
        n = count;
    }
    memcpy(to, f->file->data + f->at, n * size);
    f->at += (long)(n * size);
    return n;
}

int fseek(FILE *stream, long offset, int whence)
{
    struct open_file *f = (struct open_file *)stream;
    const long size = (long)(f->file->end - f->file->data);
    const long base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f->at : size;
    if (base + offset < 0 || base + offset > size) {
        errno = EINVAL;
        return -1;
    }
    f->at = base + offset;
    return 0;
}

long ftell(FILE *stream)
{
    return ((struct open_file *)stream)->at;
}

int fclose(FILE *stream)
{
    (void)stream;
    return 0;
}

int open(const char *name, int flags, ...)
{
    (void)flags;
    return find(name);
}

int close(int fd)
{
    (void)fd;
    return 0;
}

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    (void)addr;
    (void)prot;
    (void)flags;
    if (fd < 0 || fd > 1 || offset != 0 || length > (size_t)(files[fd].end - files[fd].data)) {
        return MAP_FAILED;
    }
    return (void *)files[fd].data;
}

int munmap(void *addr, size_t length)
{
    (void)addr;
    (void)length;
    return 0;
}

/* The board's counter as a 1 MHz clock: a "millisecond" is 1,000 counts. */
static uint64_t first_reading, last_reading;
static int readings;

int clock_gettime(clockid_t clock, struct timespec *t)
{
    (void)clock;
    if (readings > 0) {
        tsr_llama2c_measure(0); /* the last reading ends the measured tokens */
    }
    const uint64_t now = tsr_llama2c_clock();
    if (readings++ == 0) {
        first_reading = now;
    }
    last_reading = now;
    if (readings == 1) {
        tsr_llama2c_measure(1);
    }
    t->tv_sec = (time_t)tsr_llama2c_div_u64(now, 1000000u);
    t->tv_nsec = (long)(now - (uint64_t)t->tv_sec * 1000000u) * 1000;
    return 0;
}

time_t time(time_t *t) /* run.c's seed when none is given (main gives one) */
{
    const time_t now = (time_t)tsr_llama2c_div_u64(tsr_llama2c_clock(), 1000000u);
    if (t) {
        *t = now;
    }
    return now;
}

#ifndef TSR_LLAMA2C_STEPS
#define TSR_LLAMA2C_STEPS "8"
#endif

int main(void)
{
    /* Greedy (-t 0), seeded (no clock read for the seed), from the prompt-less BOS. */
    char *argv[] = {"run", "model.bin", "-z", "tokenizer.bin", "-t", "0", "-s", "1", "-n", TSR_LLAMA2C_STEPS, NULL};
    const int status = llama2c_main(10, argv);
    const uint32_t timed = (uint32_t)atoi(TSR_LLAMA2C_STEPS) - 1u; /* stories260K's first tokens end no story */
    if (status != 0 || readings != 2 || timed == 0u) {
        tsr_llama2c_puts("run.c: no timed tokens\n");
        return status ? status : 1;
    }
    tsr_llama2c_puts("run.c: ");
    tsr_llama2c_put_u64(tsr_llama2c_div_u64(last_reading - first_reading, timed));
    tsr_llama2c_puts(" ");
    tsr_llama2c_puts(tsr_llama2c_clock_unit());
    tsr_llama2c_puts(" per token (its tokens 2 to ");
    tsr_llama2c_put_u64(timed + 1u);
    tsr_llama2c_puts(")\n");
    return 0;
}
