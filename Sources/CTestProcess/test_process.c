// The test process's environment, set before main and so before any thread runs: setenv while
// other threads read the environment (every child process started copies it) can crash.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "switchboard_test_process.h"

static int ready;

// Avahi's client library finds the system bus only through DBUS_SYSTEM_BUS_ADDRESS: the test
// process's is the private bus PrivateAvahi starts at this path (the same for the whole process).
//
// Only in the test bundle: in other programs that link SwitchboardTesting (switchboard-bench) a
// setenv before main moves `environ`, where the Swift runtime of a static binary looks for argv,
// and the program saw no arguments.
__attribute__((constructor)) static void switchboard_test_process_start(void) {
    if (strstr(program_invocation_short_name, "PackageTests") == NULL) return;
    char address[128];
    snprintf(address, sizeof address, "unix:path=/tmp/switchboard-avahi-bus-%d/bus", (int)getpid());
    setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
    ready = 1;
}

int switchboard_test_process_ready(void) { return ready; }
