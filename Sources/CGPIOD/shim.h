#ifndef SWITCHBOARD_CGPIOD_SHIM_H
#define SWITCHBOARD_CGPIOD_SHIM_H
// libgpiod 1.x (Debian 12, Raspberry Pi OS Bookworm). A 2.x adapter would add its own module.
#include <gpiod.h>
#endif
