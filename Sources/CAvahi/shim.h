#ifndef SWITCHBOARD_CAVAHI_SHIM_H
#define SWITCHBOARD_CAVAHI_SHIM_H
// Avahi's client library (0.8 on Debian 12 and 13, Raspberry Pi OS Bookworm and Trixie): the
// client of avahi-daemon over D-Bus, its entry groups (services published), the threaded poll
// the client runs on, TXT string lists and alternative service names.
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#endif
