#ifndef SWITCHBOARD_TEST_PROCESS_H
#define SWITCHBOARD_TEST_PROCESS_H

/// Whether the test process's environment was set up before it started (1 in the test bundle):
/// referencing it keeps the constructor below in the link.
int switchboard_test_process_ready(void);

#endif
