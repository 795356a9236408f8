#ifndef SWITCHBOARD_GPIOD_ADAPTER_CHIP_H
#define SWITCHBOARD_GPIOD_ADAPTER_CHIP_H
/* The adapter's chip handle, the same for libgpiod 1.x and 2.x (both open and close a chip by
 * path with gpiod_chip_open and gpiod_chip_close): adapter_chip.c opens and closes it, the
 * version's adapter file reads from it. */
#include <gpiod.h>

struct sb_gpio_chip {
    struct gpiod_chip *chip;
};

#endif
