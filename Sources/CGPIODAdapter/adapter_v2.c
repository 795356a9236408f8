/* Switchboard's GPIO adapter for libgpiod 2.x (its gpiod.h has no GPIOD_BIT). */
#include <gpiod.h>
#ifndef GPIOD_BIT
#include "switchboard_gpiod.h"
#include "adapter_chip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { EVENT_CAPACITY = 16 };

struct sb_gpio_line {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events; /* for lines requested for edges */
    unsigned int offset;
};

int sb_gpio_api_major(void) { return 2; }
const char *sb_gpio_api_version(void) { return gpiod_api_version(); }
int sb_gpio_kernel_debounce(void) { return 1; }

int sb_gpio_chip_get_info(sb_gpio_chip *chip, struct sb_gpio_chip_info *info) {
    memset(info, 0, sizeof(*info));
    struct gpiod_chip_info *chip_info = gpiod_chip_get_info(chip->chip);
    if (!chip_info) return -1;
    strncpy(info->name, gpiod_chip_info_get_name(chip_info), sizeof(info->name) - 1);
    strncpy(info->label, gpiod_chip_info_get_label(chip_info), sizeof(info->label) - 1);
    info->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(chip_info);
    gpiod_chip_info_free(chip_info);
    return 0;
}

int sb_gpio_chip_find_line(sb_gpio_chip *chip, const char *name) {
    return gpiod_chip_get_line_offset_from_name(chip->chip, name);
}

int sb_gpio_chip_line_consumer(sb_gpio_chip *chip, unsigned int offset, char *buffer, size_t size) {
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
    if (!info) return -1;
    int used = gpiod_line_info_is_used(info) ? 1 : 0;
    if (used && size > 0) {
        const char *consumer = gpiod_line_info_get_consumer(info);
        strncpy(buffer, consumer ? consumer : "", size - 1);
        buffer[size - 1] = '\0';
    }
    gpiod_line_info_free(info);
    return used;
}

/* The whole configuration of one line: libgpiod 2.x replaces a request's settings as a whole. */
static struct gpiod_line_config *line_config(unsigned int offset, const struct sb_gpio_settings *settings) {
    struct gpiod_line_settings *line = gpiod_line_settings_new();
    struct gpiod_line_config *config = gpiod_line_config_new();
    if (!line || !config) goto failed;
    int status = 0;
    if (settings->direction == SB_GPIO_OUTPUT) {
        status |= gpiod_line_settings_set_direction(line, GPIOD_LINE_DIRECTION_OUTPUT);
        status |= gpiod_line_settings_set_output_value(line, settings->output_value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
        enum gpiod_line_drive drive = GPIOD_LINE_DRIVE_PUSH_PULL;
        if (settings->drive == SB_GPIO_OPEN_DRAIN) drive = GPIOD_LINE_DRIVE_OPEN_DRAIN;
        if (settings->drive == SB_GPIO_OPEN_SOURCE) drive = GPIOD_LINE_DRIVE_OPEN_SOURCE;
        status |= gpiod_line_settings_set_drive(line, drive);
    } else {
        status |= gpiod_line_settings_set_direction(line, GPIOD_LINE_DIRECTION_INPUT);
        enum gpiod_line_edge edge = GPIOD_LINE_EDGE_NONE;
        if (settings->edges == SB_GPIO_EDGES_RISING) edge = GPIOD_LINE_EDGE_RISING;
        if (settings->edges == SB_GPIO_EDGES_FALLING) edge = GPIOD_LINE_EDGE_FALLING;
        if (settings->edges == SB_GPIO_EDGES_BOTH) edge = GPIOD_LINE_EDGE_BOTH;
        status |= gpiod_line_settings_set_edge_detection(line, edge);
        if (edge != GPIOD_LINE_EDGE_NONE) {
            status |= gpiod_line_settings_set_event_clock(line, GPIOD_LINE_CLOCK_MONOTONIC);
            gpiod_line_settings_set_debounce_period_us(line, (unsigned long)settings->debounce_us);
        }
    }
    enum gpiod_line_bias bias = GPIOD_LINE_BIAS_AS_IS;
    if (settings->bias == SB_GPIO_BIAS_DISABLED) bias = GPIOD_LINE_BIAS_DISABLED;
    if (settings->bias == SB_GPIO_BIAS_PULL_UP) bias = GPIOD_LINE_BIAS_PULL_UP;
    if (settings->bias == SB_GPIO_BIAS_PULL_DOWN) bias = GPIOD_LINE_BIAS_PULL_DOWN;
    status |= gpiod_line_settings_set_bias(line, bias);
    gpiod_line_settings_set_active_low(line, settings->active_low != 0);
    if (status != 0) {
        errno = EINVAL;
        goto failed;
    }
    if (gpiod_line_config_add_line_settings(config, &offset, 1, line) < 0) goto failed;
    gpiod_line_settings_free(line);
    return config;
failed:;
    int error = errno;
    if (line) gpiod_line_settings_free(line);
    if (config) gpiod_line_config_free(config);
    errno = error ? error : ENOMEM;
    return NULL;
}

sb_gpio_line *sb_gpio_line_request(sb_gpio_chip *chip, unsigned int offset, const char *consumer,
                                   const struct sb_gpio_settings *settings) {
    sb_gpio_line *wrapper = calloc(1, sizeof(*wrapper));
    struct gpiod_line_config *config = line_config(offset, settings);
    struct gpiod_request_config *request = gpiod_request_config_new();
    int wants_edges = settings->direction == SB_GPIO_INPUT && settings->edges != SB_GPIO_EDGES_NONE;
    if (!wrapper || !config || !request) goto failed;
    if (wants_edges && !(wrapper->events = gpiod_edge_event_buffer_new(EVENT_CAPACITY))) goto failed;
    gpiod_request_config_set_consumer(request, consumer);
    wrapper->request = gpiod_chip_request_lines(chip->chip, request, config);
    if (!wrapper->request) goto failed;
    wrapper->offset = offset;
    gpiod_line_config_free(config);
    gpiod_request_config_free(request);
    return wrapper;
failed:;
    int error = errno;
    if (wrapper && wrapper->events) gpiod_edge_event_buffer_free(wrapper->events);
    free(wrapper);
    if (config) gpiod_line_config_free(config);
    if (request) gpiod_request_config_free(request);
    errno = error ? error : ENOMEM;
    return NULL;
}

int sb_gpio_line_reconfigure(sb_gpio_line *line, const struct sb_gpio_settings *settings) {
    int wants_edges = settings->direction == SB_GPIO_INPUT && settings->edges != SB_GPIO_EDGES_NONE;
    if (wants_edges && !line->events && !(line->events = gpiod_edge_event_buffer_new(EVENT_CAPACITY))) return -1;
    struct gpiod_line_config *config = line_config(line->offset, settings);
    if (!config) return -1;
    int status = gpiod_line_request_reconfigure_lines(line->request, config);
    int error = errno;
    gpiod_line_config_free(config);
    errno = error;
    return status;
}

void sb_gpio_line_release(sb_gpio_line *line) {
    if (!line) return;
    gpiod_line_request_release(line->request);
    if (line->events) gpiod_edge_event_buffer_free(line->events);
    free(line);
}

int sb_gpio_line_get_value(sb_gpio_line *line) {
    enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
    if (value == GPIOD_LINE_VALUE_ERROR) return -1;
    return value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0;
}

int sb_gpio_line_set_value(sb_gpio_line *line, int value) {
    return gpiod_line_request_set_value(line->request, line->offset, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

int sb_gpio_line_fd(sb_gpio_line *line) { return gpiod_line_request_get_fd(line->request); }

int sb_gpio_line_read_events(sb_gpio_line *line, struct sb_gpio_event *events, unsigned int max) {
    if (!line->events) {
        errno = EINVAL;
        return -1;
    }
    if (max > EVENT_CAPACITY) max = EVENT_CAPACITY;
    int count = gpiod_line_request_read_edge_events(line->request, line->events, max);
    for (int index = 0; index < count; index++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->events, (unsigned long)index);
        events[index].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        events[index].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    }
    return count;
}
#endif
