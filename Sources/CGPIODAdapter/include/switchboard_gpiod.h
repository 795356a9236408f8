#ifndef SWITCHBOARD_GPIOD_H
#define SWITCHBOARD_GPIOD_H
/*
 * Switchboard's GPIO adapter: one small C interface over libgpiod, compiled against whichever
 * <gpiod.h> the machine has. libgpiod 1.x (Debian 12, Raspberry Pi OS Bookworm, Ubuntu 24.04) is
 * implemented in adapter_v1.c, libgpiod 2.x (Debian 13, Raspberry Pi OS Trixie) in adapter_v2.c;
 * only the one that matches the header compiles to anything; adapter_chip.c opens and closes a
 * chip, which both do alike. These files hold every libgpiod call Switchboard makes; no libgpiod
 * type crosses this interface.
 *
 * Failures return NULL or -1 with errno set, as libgpiod does.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An open chip. */
typedef struct sb_gpio_chip sb_gpio_chip;
/** One requested line. */
typedef struct sb_gpio_line sb_gpio_line;

enum sb_gpio_direction { SB_GPIO_INPUT = 0, SB_GPIO_OUTPUT = 1 };
enum sb_gpio_bias { SB_GPIO_BIAS_AS_IS = 0, SB_GPIO_BIAS_DISABLED, SB_GPIO_BIAS_PULL_UP, SB_GPIO_BIAS_PULL_DOWN };
enum sb_gpio_drive { SB_GPIO_PUSH_PULL = 0, SB_GPIO_OPEN_DRAIN, SB_GPIO_OPEN_SOURCE };
enum sb_gpio_edges { SB_GPIO_EDGES_NONE = 0, SB_GPIO_EDGES_RISING, SB_GPIO_EDGES_FALLING, SB_GPIO_EDGES_BOTH };

/** Everything a line is requested with. Every field is explicit: a reconfiguration replaces all. */
struct sb_gpio_settings {
    int direction;        /* enum sb_gpio_direction */
    int output_value;     /* logical value an output starts at, in the request itself */
    int active_low;
    int bias;             /* enum sb_gpio_bias */
    int drive;            /* enum sb_gpio_drive, outputs only */
    int edges;            /* enum sb_gpio_edges, inputs only */
    uint64_t debounce_us; /* kernel debounce of an input's edges; applied only where sb_gpio_kernel_debounce() */
};

struct sb_gpio_chip_info {
    char name[64];
    char label[64];
    unsigned int num_lines;
};

/** An edge: its logical direction and the kernel's CLOCK_MONOTONIC timestamp. */
struct sb_gpio_event {
    int rising;
    uint64_t timestamp_ns;
};

/** The libgpiod major version compiled in: 1 or 2. */
int sb_gpio_api_major(void);
/** libgpiod's own version string ("1.6.3", "2.2.1"). */
const char *sb_gpio_api_version(void);
/** 1 where a line request can ask the kernel to debounce its edges (libgpiod 2.x), else 0. */
int sb_gpio_kernel_debounce(void);

/** Opens the chip at a path (`/dev/gpiochip0`). */
sb_gpio_chip *sb_gpio_chip_open(const char *path);
void sb_gpio_chip_close(sb_gpio_chip *chip);
int sb_gpio_chip_get_info(sb_gpio_chip *chip, struct sb_gpio_chip_info *info);
/** The offset of the line with this name, or -1 (errno ENOENT when there is none). */
int sb_gpio_chip_find_line(sb_gpio_chip *chip, const char *name);
/** 1 and the consumer in `buffer` when the line is in use, 0 when free, -1 on error. */
int sb_gpio_chip_line_consumer(sb_gpio_chip *chip, unsigned int offset, char *buffer, size_t size);

/** Requests one line with all its settings at once (an output gets its value in the request). */
sb_gpio_line *sb_gpio_line_request(sb_gpio_chip *chip, unsigned int offset, const char *consumer,
                                   const struct sb_gpio_settings *settings);
/** Changes a requested line's settings without releasing it. libgpiod 1.x cannot change edge
 *  detection in place: there it fails with EOPNOTSUPP for lines requested for edges. */
int sb_gpio_line_reconfigure(sb_gpio_line *line, const struct sb_gpio_settings *settings);
/** Releases the line and frees it. */
void sb_gpio_line_release(sb_gpio_line *line);
/** The logical value: 0 or 1, -1 on error. */
int sb_gpio_line_get_value(sb_gpio_line *line);
int sb_gpio_line_set_value(sb_gpio_line *line, int value);
/** The descriptor that becomes readable when edges wait. */
int sb_gpio_line_fd(sb_gpio_line *line);
/** Reads up to `max` waiting edges (blocks when none wait): their count, or -1. */
int sb_gpio_line_read_events(sb_gpio_line *line, struct sb_gpio_event *events, unsigned int max);

#ifdef __cplusplus
}
#endif
#endif
