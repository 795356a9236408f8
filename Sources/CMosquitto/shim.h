#ifndef SWITCHBOARD_CMOSQUITTO_SHIM_H
#define SWITCHBOARD_CMOSQUITTO_SHIM_H
// libmosquitto 2.0 (Debian 12, Raspberry Pi OS Bookworm).
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
