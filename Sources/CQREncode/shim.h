#ifndef SWITCHBOARD_CQRENCODE_SHIM_H
#define SWITCHBOARD_CQRENCODE_SHIM_H
// libqrencode 4.x (Debian 12 and 13): QR code symbols from text.
#include <qrencode.h>
#endif
