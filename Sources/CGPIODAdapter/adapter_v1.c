/* Switchboard's GPIO adapter for libgpiod 1.x (only libgpiod 1.x's gpiod.h defines GPIOD_BIT). */
#include <gpiod.h>
#ifdef GPIOD_BIT
#include "switchboard_gpiod.h"
#include "adapter_chip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sb_gpio_line {
    struct gpiod_line *line; /* owned by the chip; requested by us until released */
    int edges;
};

int sb_gpio_api_major(void) { return 1; }
const char *sb_gpio_api_version(void) { return gpiod_version_string(); }
int sb_gpio_kernel_debounce(void) { return 0; }

int sb_gpio_chip_get_info(sb_gpio_chip *chip, struct sb_gpio_chip_info *info) {
    memset(info, 0, sizeof(*info));
    strncpy(info->name, gpiod_chip_name(chip->chip), sizeof(info->name) - 1);
    strncpy(info->label, gpiod_chip_label(chip->chip), sizeof(info->label) - 1);
    info->num_lines = gpiod_chip_num_lines(chip->chip);
    return 0;
}

int sb_gpio_chip_find_line(sb_gpio_chip *chip, const char *name) {
    struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
    if (!line) return -1;
    return (int)gpiod_line_offset(line);
}

int sb_gpio_chip_line_consumer(sb_gpio_chip *chip, unsigned int offset, char *buffer, size_t size) {
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return -1;
    if (gpiod_line_update(line) < 0) return -1;
    if (!gpiod_line_is_used(line)) return 0;
    const char *consumer = gpiod_line_consumer(line);
    if (size > 0) {
        strncpy(buffer, consumer ? consumer : "", size - 1);
        buffer[size - 1] = '\0';
    }
    return 1;
}

static int request_flags(const struct sb_gpio_settings *settings) {
    int flags = 0;
    if (settings->active_low) flags |= GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW;
    switch (settings->bias) {
    case SB_GPIO_BIAS_DISABLED: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case SB_GPIO_BIAS_PULL_UP: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case SB_GPIO_BIAS_PULL_DOWN: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    default: break;
    }
    if (settings->direction == SB_GPIO_OUTPUT) {
        if (settings->drive == SB_GPIO_OPEN_DRAIN) flags |= GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN;
        if (settings->drive == SB_GPIO_OPEN_SOURCE) flags |= GPIOD_LINE_REQUEST_FLAG_OPEN_SOURCE;
    }
    return flags;
}

static int request_type(const struct sb_gpio_settings *settings) {
    if (settings->direction == SB_GPIO_OUTPUT) return GPIOD_LINE_REQUEST_DIRECTION_OUTPUT;
    switch (settings->edges) {
    case SB_GPIO_EDGES_RISING: return GPIOD_LINE_REQUEST_EVENT_RISING_EDGE;
    case SB_GPIO_EDGES_FALLING: return GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE;
    case SB_GPIO_EDGES_BOTH: return GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES;
    default: return GPIOD_LINE_REQUEST_DIRECTION_INPUT;
    }
}

sb_gpio_line *sb_gpio_line_request(sb_gpio_chip *chip, unsigned int offset, const char *consumer,
                                   const struct sb_gpio_settings *settings) {
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return NULL;
    sb_gpio_line *wrapper = calloc(1, sizeof(*wrapper));
    if (!wrapper) {
        errno = ENOMEM;
        return NULL;
    }
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = request_type(settings),
        .flags = request_flags(settings),
    };
    if (gpiod_line_request(line, &config, settings->output_value ? 1 : 0) < 0) {
        int error = errno;
        free(wrapper);
        errno = error;
        return NULL;
    }
    wrapper->line = line;
    wrapper->edges = settings->direction == SB_GPIO_INPUT ? settings->edges : SB_GPIO_EDGES_NONE;
    return wrapper;
}

int sb_gpio_line_reconfigure(sb_gpio_line *line, const struct sb_gpio_settings *settings) {
    int edges = settings->direction == SB_GPIO_INPUT ? settings->edges : SB_GPIO_EDGES_NONE;
    /* The v1 interface changes a handle's settings, not an event request's. */
    if (line->edges != SB_GPIO_EDGES_NONE || edges != SB_GPIO_EDGES_NONE) {
        errno = EOPNOTSUPP;
        return -1;
    }
    int direction = settings->direction == SB_GPIO_OUTPUT ? GPIOD_LINE_REQUEST_DIRECTION_OUTPUT
                                                          : GPIOD_LINE_REQUEST_DIRECTION_INPUT;
    return gpiod_line_set_config(line->line, direction, request_flags(settings), settings->output_value ? 1 : 0);
}

void sb_gpio_line_release(sb_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    free(line);
}

int sb_gpio_line_get_value(sb_gpio_line *line) { return gpiod_line_get_value(line->line); }

int sb_gpio_line_set_value(sb_gpio_line *line, int value) { return gpiod_line_set_value(line->line, value ? 1 : 0); }

int sb_gpio_line_fd(sb_gpio_line *line) { return gpiod_line_event_get_fd(line->line); }

int sb_gpio_line_read_events(sb_gpio_line *line, struct sb_gpio_event *events, unsigned int max) {
    struct gpiod_line_event buffer[16];
    if (max > 16) max = 16;
    int count = gpiod_line_event_read_multiple(line->line, buffer, max);
    for (int index = 0; index < count; index++) {
        events[index].rising = buffer[index].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        events[index].timestamp_ns = (uint64_t)buffer[index].ts.tv_sec * 1000000000u + (uint64_t)buffer[index].ts.tv_nsec;
    }
    return count;
}
#endif
