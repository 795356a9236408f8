#ifndef SWITCHBOARD_CGPIOD_SHIM_H
#define SWITCHBOARD_CGPIOD_SHIM_H
// libgpiod, 1.x or 2.x: whichever the machine has. Only CGPIODAdapter calls it.
#include <gpiod.h>
#endif
