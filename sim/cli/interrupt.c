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

void interrupt_catch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

void interrupt_release(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

gboolean interrupt_happened(void) { return interrupted != 0; }

void interrupt_print_progress(const char *line)
{
    fprintf(stderr, "sim: %s\n", line);
    fflush(stderr);
}
