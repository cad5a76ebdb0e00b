/* interrupt.c — SIGINT as a request to stop searching (see interrupt.h). */
#include "cli/interrupt.h"

#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

const volatile sig_atomic_t *interrupt_flag(void) { return &interrupted; }

static void set_sigint(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

void interrupt_catch(void) { set_sigint(on_sigint); }
void interrupt_release(void) { set_sigint(SIG_DFL); }

void interrupt_print_progress(const char *line)
{
    fprintf(stderr, "sim: %s\n", line);
    fflush(stderr);
}
