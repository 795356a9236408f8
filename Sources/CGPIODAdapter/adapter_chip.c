/* Switchboard's GPIO adapter: opening and closing a chip, which libgpiod 1.x and 2.x do alike. */
#include "switchboard_gpiod.h"
#include "adapter_chip.h"

#include <errno.h>
#include <stdlib.h>

sb_gpio_chip *sb_gpio_chip_open(const char *path) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    sb_gpio_chip *wrapper = calloc(1, sizeof(*wrapper));
    if (!wrapper) {
        gpiod_chip_close(chip);
        errno = ENOMEM;
        return NULL;
    }
    wrapper->chip = chip;
    return wrapper;
}

void sb_gpio_chip_close(sb_gpio_chip *chip) {
    if (!chip) return;
    gpiod_chip_close(chip->chip);
    free(chip);
}
