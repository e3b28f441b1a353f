/* SPDX-License-Identifier: MIT */

/*
 * test-arrow.c: the Arrow IPC writer and reader (lib/core/arrow*.c).
 *
 * The writer is checked byte for byte against a worked example (a
 * 312-byte reference stream); the reader against that vector, against streams
 * written by npm apache-arrow 21.2.0 (embedded below, generated once), in
 * writer -> reader round trips of every writable type, against hand-made
 * malformed streams (exact errors), and under 20000 random mutations.
 */

#include "core/arrow.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/xmem.h"
#include "tap.h"
#include "core/banned.h"

/* The reference stream: {id: Int64, nullable}, one batch [1, null, 3]. */
/* Byte tables keep their hand layout, several bytes to a line. */
/* clang-format off */
static const uint8_t example[312] = {
	0xff, 0xff, 0xff, 0xff, 0x78, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x0c, 0x00,
	0x08, 0x00, 0x0a, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x0c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x01, 0x00, 0x08, 0x00, 0x08, 0x00,
	0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x10, 0x00, 0x14, 0x00,
	0x04, 0x00, 0x10, 0x00, 0x11, 0x00, 0x08, 0x00,
	0x00, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00,
	0x24, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x69, 0x64, 0x00, 0x00,
	0x08, 0x00, 0x0c, 0x00, 0x04, 0x00, 0x08, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0x88, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x14, 0x00,
	0x10, 0x00, 0x12, 0x00, 0x0c, 0x00, 0x04, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x04, 0x00, 0x03, 0x00,
	0x0a, 0x00, 0x14, 0x00, 0x04, 0x00, 0x0c, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0c, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
};

/*
 * The same table written by apache-arrow 21.2.0 with tableToIPC(...,
 * 'stream'): a back-to-front FlatBuffer layout, allowed by section 6.4.
 */
static const uint8_t js_example[320] = {
	0xff, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x0a, 0x00, 0x10, 0x00, 0x0e, 0x00, 0x07, 0x00, 0x08, 0x00,
	0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x10, 0x00, 0x18, 0x00, 0x04, 0x00, 0x0b, 0x00,
	0x13, 0x00, 0x14, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x18, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x69, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x0c, 0x00,
	0x08, 0x00, 0x07, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x40, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x88, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x16, 0x00,
	0x14, 0x00, 0x0f, 0x00, 0x10, 0x00, 0x04, 0x00, 0x0c, 0x00, 0x00, 0x00,
	0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	0x10, 0x00, 0x00, 0x00, 0x04, 0x00, 0x0a, 0x00, 0x18, 0x00, 0x0c, 0x00,
	0x08, 0x00, 0x04, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
	0x38, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
};

/*
 * apache-arrow 21.2.0, 3 rows: st struct<a:int32, b:list<utf8>>,
 * m map<utf8, int64>, ll large_list<int16>.
 */
static const uint8_t js_nested[1360] = {
	0xff, 0xff, 0xff, 0xff, 0x38, 0x02, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x0a, 0x00, 0x10, 0x00, 0x0e, 0x00, 0x07, 0x00, 0x08, 0x00,
	0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x30, 0x01, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x58, 0xfe, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x15, 0x48, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x6c, 0x6c, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0x80, 0xfe, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x14, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x65, 0x6c, 0x65, 0x6d,
	0x65, 0x6e, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x74, 0xfe, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00, 0x6c, 0xfe, 0xff, 0xff,
	0xb8, 0xfe, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0xac, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x6d, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0xa0, 0xff, 0xff, 0xff, 0x10, 0x00, 0x00, 0x00,
	0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x84, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x65, 0x6e, 0x74, 0x72, 0x69, 0x65, 0x73, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x4c, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x0c, 0xff, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x14, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
	0x40, 0x00, 0x00, 0x00, 0x10, 0x00, 0x14, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x0f, 0x00, 0x10, 0x00, 0x00, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x10, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x6b, 0x65, 0x79, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x28, 0xff, 0xff, 0xff, 0x2c, 0xff, 0xff, 0xff,
	0x30, 0xff, 0xff, 0xff, 0x7c, 0xff, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d,
	0xbc, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x73, 0x74, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x70, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0xa8, 0xff, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x40, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x62, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x00, 0x00, 0xd0, 0xff, 0xff, 0xff, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x14, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x65, 0x6c, 0x65, 0x6d,
	0x65, 0x6e, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb0, 0xff, 0xff, 0xff,
	0xb4, 0xff, 0xff, 0xff, 0x10, 0x00, 0x18, 0x00, 0x04, 0x00, 0x0b, 0x00,
	0x13, 0x00, 0x14, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x18, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x0c, 0x00,
	0x08, 0x00, 0x07, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x04, 0x00, 0x04, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0x38, 0x02, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x16, 0x00, 0x14, 0x00, 0x0f, 0x00,
	0x10, 0x00, 0x04, 0x00, 0x0c, 0x00, 0x00, 0x00, 0xc8, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x10, 0x00, 0x00, 0x00,
	0x04, 0x00, 0x0a, 0x00, 0x18, 0x00, 0x0c, 0x00, 0x08, 0x00, 0x04, 0x00,
	0x0a, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x58, 0x01, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x68, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
	0xf8, 0xff, 0xff, 0xff, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x78, 0x79, 0x7a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x61, 0x62, 0x63, 0x64, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00,
};
/* clang-format on */

/* ---- helpers ------------------------------------------------------------ */

/* Collects every value of every batch as JSON lines, plus counters. */
struct collect {
	struct sc_buf text; /* JSON lines */
	size_t batches;
	size_t rows;
	size_t nrows[8];
	int fail_at; /* batch index to fail at, or -1 */
};

static void
collect_init(struct collect *c)
{
	memset(c, 0, sizeof(*c));
	sc_buf_init(&c->text, SC_BUF_UNLIMITED);
	c->fail_at = -1;
}

static int
collect_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct collect *c = arg;
	size_t r, k;

	if ((int)b->index == c->fail_at)
		return sc_error_set(err, SC_ST_IO, "stop at batch %zu",
		    b->index);
	if (c->batches < SC_NELEM(c->nrows))
		c->nrows[c->batches] = b->nrows;
	c->batches++;
	c->rows += b->nrows;
	for (r = 0; r < b->nrows; r++) {
		sc_buf_addch(&c->text, '{', NULL);
		for (k = 0; k < b->schema->nfields; k++) {
			sc_buf_addf(&c->text, NULL, "%s\"%s\":", k ? "," : "",
			    b->schema->fields[k].name);
			if (sc_arrow_format_value(b, k, r, SC_ARROW_FMT_JSON,
				&c->text, NULL, err) == -1)
				return -1;
		}
		sc_buf_addstr(&c->text, "}\n", NULL);
	}
	return 0;
}

/* Read p[0..n) and return its JSON lines (static buffer), or the error. */
static const char *
read_json(const void *p, size_t n, struct collect *c, struct sc_error *err)
{
	collect_init(c);
	sc_error_init(err);
	if (sc_arrow_read_stream(p, n, collect_fn, c, err) == -1)
		return NULL;
	return (const char *)c->text.data;
}

/* Expect reading p[0..n) to fail with status PROTOCOL and message msg. */
static void
expect_error(const void *p, size_t n, const char *msg, const char *name)
{
	struct collect c;
	struct sc_error err;
	const char *got;

	got = read_json(p, n, &c, &err);
	ok(got == NULL && err.status == SC_ST_PROTOCOL, "%s: rejected", name);
	is_str(err.msg, msg, "%s: message", name);
	sc_buf_release(&c.text);
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* A copy of the section 6 vector with one byte changed. */
static void
patched(uint8_t *dst, size_t at, uint8_t v)
{
	memcpy(dst, example, sizeof(example));
	dst[at] = v;
}

/* ---- section 6 -------------------------------------------------------- */

static void
test_example_write(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, true);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	ok(w != NULL, "writer for {id: int64}");
	sc_arrow_append_int64(w, 0, 1, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_null(w, 0, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_int64(w, 0, 3, &err);
	sc_arrow_writer_end_row(w, &err);
	is_int(sc_arrow_writer_rows(w), 3, "3 rows buffered");
	is_int(sc_arrow_writer_bytes(w), 32, "body estimate 32 bytes");
	is_int(sc_arrow_writer_flush(w, &out, &err), 0, "flush");
	is_mem(out.data, out.len, example, sizeof(example),
	    "writer output equals the reference stream byte for byte");
	is_int(sc_arrow_writer_rows(w), 0, "flush resets the rows");
	is_int(sc_arrow_writer_bytes(w), 0, "flush resets the body");

	/* The same writer again: identical bytes (state fully reset). */
	sc_buf_reset(&out);
	sc_arrow_append_int64(w, 0, 1, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_null(w, 0, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_int64(w, 0, 3, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_writer_flush(w, &out, &err);
	is_mem(out.data, out.len, example, sizeof(example),
	    "second flush of the same writer, same bytes");
	sc_arrow_writer_free(w);
	sc_buf_release(&out);
}

static int
example_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	int64_t *v = arg;
	double d;

	(void)err;
	v[0] = (int64_t)b->nrows;
	v[1] = sc_arrow_get_int64(b, 0, 0, &v[2]);
	v[3] = sc_arrow_is_null(b, 0, 1);
	v[4] = sc_arrow_get_int64(b, 0, 1, &v[5]);
	v[6] = sc_arrow_get_int64(b, 0, 2, &v[7]);
	v[8] = sc_arrow_get_double(b, 0, 2, &d) == 0 ? (int64_t)d : -99;
	v[9] = sc_arrow_is_null(b, 0, 3); /* out of range */
	v[10] = sc_arrow_is_null(b, 1, 0);
	return 0;
}

static void
check_example_read(const uint8_t *p, size_t n, const char *name)
{
	struct sc_arrow_schema s;
	struct sc_error err;
	int64_t v[11];

	memset(v, 0, sizeof(v));
	sc_error_init(&err);
	is_int(sc_arrow_read_stream(p, n, example_fn, v, &err), 0, "%s: reads",
	    name);
	is_int(v[0], 3, "%s: 3 rows", name);
	ok(v[1] == 0 && v[2] == 1, "%s: row 0 = 1", name);
	ok(v[3] == 1 && v[4] == -1, "%s: row 1 is null", name);
	ok(v[6] == 0 && v[7] == 3 && v[8] == 3, "%s: row 2 = 3", name);
	ok(v[9] == 1 && v[10] == 1, "%s: out of range reads as null", name);
	is_int(sc_arrow_read_schema(p, n, &s, &err), 0, "%s: schema", name);
	ok(s.nfields == 1 && strcmp(s.fields[0].name, "id") == 0 &&
		s.fields[0].type == SC_ARROW_INT64 && s.fields[0].nullable &&
		s.fields[0].nchildren == 0,
	    "%s: schema {id: int64 nullable}", name);
	sc_arrow_schema_release(&s);
}

static void
test_example_read(void)
{
	uint8_t legacy[sizeof(example)];
	uint8_t v4[sizeof(example)];
	struct collect c;
	struct sc_error err;
	size_t n = 0;

	check_example_read(example, sizeof(example), "section 6");
	check_example_read(js_example, sizeof(js_example), "apache-arrow");

	/* Legacy framing: no continuation markers, 4-byte end marker. */
	memcpy(legacy + n, example + 4, 124);
	n += 124;
	memcpy(legacy + n, example + 132, 172);
	n += 172;
	memset(legacy + n, 0, 4);
	n += 4;
	check_example_read(legacy, n, "legacy framing");

	/* Metadata version V4 (3) in both messages. */
	patched(v4, 32, 3);
	v4[172] = 3;
	check_example_read(v4, sizeof(v4), "metadata V4");

	/* Without the end-of-stream marker. */
	check_example_read(example, 304, "no end-of-stream marker");

	is_str(read_json(example, sizeof(example), &c, &err),
	    "{\"id\":1}\n{\"id\":null}\n{\"id\":3}\n", "section 6 as JSON");
	sc_buf_release(&c.text);
	is_str(read_json(example, 128, &c, &err), "", "schema only: no rows");
	is_int(c.batches, 0, "schema only: no batches");
	sc_buf_release(&c.text);
}

/* ---- round trips --------------------------------------------------------- */

enum {
	R_B,
	R_I8,
	R_I16,
	R_I32,
	R_I64,
	R_F32,
	R_F64,
	R_DEC,
	R_S,
	R_LS,
	R_BIN,
	R_LBIN,
	R_D,
	R_TS,
	R_TSNTZ,
	R_N,
	R_NN,
	RCOLS
};

static struct sc_arrow_writer *
all_types_writer(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_field *f;
	struct sc_arrow_writer *w;
	struct sc_error err;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "b", SC_ARROW_BOOL, true);
	sc_arrow_schema_add(&s, "i8", SC_ARROW_INT8, true);
	sc_arrow_schema_add(&s, "i16", SC_ARROW_INT16, true);
	sc_arrow_schema_add(&s, "i32", SC_ARROW_INT32, true);
	sc_arrow_schema_add(&s, "i64", SC_ARROW_INT64, true);
	sc_arrow_schema_add(&s, "f32", SC_ARROW_FLOAT, true);
	sc_arrow_schema_add(&s, "f64", SC_ARROW_DOUBLE, true);
	f = sc_arrow_schema_add(&s, "dec", SC_ARROW_DECIMAL128, true);
	f->precision = 5;
	f->scale = 2;
	sc_arrow_schema_add(&s, "s", SC_ARROW_UTF8, true);
	sc_arrow_schema_add(&s, "ls", SC_ARROW_LARGE_UTF8, true);
	sc_arrow_schema_add(&s, "bin", SC_ARROW_BINARY, true);
	sc_arrow_schema_add(&s, "lbin", SC_ARROW_LARGE_BINARY, true);
	sc_arrow_schema_add(&s, "d", SC_ARROW_DATE32, true);
	f = sc_arrow_schema_add(&s, "ts", SC_ARROW_TIMESTAMP_US, true);
	f->tz = sc_xstrdup("Etc/UTC");
	sc_arrow_schema_add(&s, "tsntz", SC_ARROW_TIMESTAMP_US, true);
	sc_arrow_schema_add(&s, "n", SC_ARROW_NULL, true);
	sc_arrow_schema_add(&s, "nn", SC_ARROW_INT32, false);
	sc_error_init(&err);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	return w;
}

/* Row r of the round-trip table; every third row is null but for nn. */
static int
all_types_row(struct sc_arrow_writer *w, int r, struct sc_error *err)
{
	static const char *const dec[] = { "123.45", "-0.05", "0" };
	static const uint8_t bin[] = { 0x00, 0xff, 0x10 };
	int c, rc = 0;

	for (c = 0; c < RCOLS && rc == 0; c++) {
		if (c == R_N || (c != R_NN && r % 3 == 2)) {
			rc = sc_arrow_append_null(w, (size_t)c, err);
			continue;
		}
		switch (c) {
		case R_B:
			rc = sc_arrow_append_bool(w, R_B, r % 2 == 0, err);
			break;
		case R_I8:
		case R_I16:
		case R_I32:
		case R_I64:
			rc = sc_arrow_append_int64(w, (size_t)c,
			    (r % 2 ? -1 : 1) * (int64_t)(r + 1) * (c + 1), err);
			break;
		case R_F32:
		case R_F64:
			rc = sc_arrow_append_double(w, (size_t)c, r + 0.5, err);
			break;
		case R_DEC:
			rc = sc_arrow_append_decimal_str(w, R_DEC, dec[r % 3],
			    err);
			break;
		case R_S:
		case R_LS:
			rc = sc_arrow_append_bytes(w, (size_t)c, "hello",
			    (size_t)r % 6, err);
			break;
		case R_BIN:
		case R_LBIN:
			rc = sc_arrow_append_bytes(w, (size_t)c, bin,
			    (size_t)r % 4, err);
			break;
		case R_D:
			rc = sc_arrow_append_int64(w, R_D, 19000 + r, err);
			break;
		case R_TS:
		case R_TSNTZ:
			rc = sc_arrow_append_int64(w, (size_t)c,
			    1700000000000000LL + r * 1500, err);
			break;
		case R_NN:
			rc = sc_arrow_append_int64(w, R_NN, r * 100, err);
			break;
		}
	}
	return rc == 0 ? sc_arrow_writer_end_row(w, err) : -1;
}

static const char all_types_json[] =
    "{\"b\":true,\"i8\":2,\"i16\":3,\"i32\":4,\"i64\":5,\"f32\":0.5,"
    "\"f64\":0.5,\"dec\":123.45,\"s\":\"\",\"ls\":\"\",\"bin\":\"\","
    "\"lbin\":\"\",\"d\":\"2022-01-08\",\"ts\":\"2023-11-14 22:13:20\","
    "\"tsntz\":\"2023-11-14 22:13:20\",\"n\":null,\"nn\":0}\n"
    "{\"b\":false,\"i8\":-4,\"i16\":-6,\"i32\":-8,\"i64\":-10,"
    "\"f32\":1.5,\"f64\":1.5,\"dec\":-0.05,\"s\":\"h\",\"ls\":\"h\","
    "\"bin\":\"00\",\"lbin\":\"00\",\"d\":\"2022-01-09\","
    "\"ts\":\"2023-11-14 22:13:20.0015\","
    "\"tsntz\":\"2023-11-14 22:13:20.0015\",\"n\":null,\"nn\":100}\n"
    "{\"b\":null,\"i8\":null,\"i16\":null,\"i32\":null,\"i64\":null,"
    "\"f32\":null,\"f64\":null,\"dec\":null,\"s\":null,\"ls\":null,"
    "\"bin\":null,\"lbin\":null,\"d\":null,\"ts\":null,\"tsntz\":null,"
    "\"n\":null,\"nn\":200}\n"
    "{\"b\":false,\"i8\":-8,\"i16\":-12,\"i32\":-16,\"i64\":-20,"
    "\"f32\":3.5,\"f64\":3.5,\"dec\":123.45,\"s\":\"hel\",\"ls\":\"hel\","
    "\"bin\":\"00ff10\",\"lbin\":\"00ff10\",\"d\":\"2022-01-11\","
    "\"ts\":\"2023-11-14 22:13:20.0045\","
    "\"tsntz\":\"2023-11-14 22:13:20.0045\",\"n\":null,\"nn\":300}\n";

static void
test_roundtrip(void)
{
	struct sc_arrow_writer *w = all_types_writer();
	struct sc_arrow_schema s;
	struct collect c;
	struct sc_error err;
	struct sc_buf out;
	const char *got;
	int r;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	ok(w != NULL, "writer for every writable type");
	for (r = 0; r < 4; r++)
		if (all_types_row(w, r, &err) == -1)
			break;
	is_int(r, 4, "4 rows appended");
	is_int(sc_arrow_writer_flush(w, &out, &err), 0, "flush");
	got = read_json(out.data, out.len, &c, &err);
	is_str(got, all_types_json, "round trip of every writable type");
	is_int(c.batches, 1, "one batch");
	sc_buf_release(&c.text);

	is_int(sc_arrow_read_schema(out.data, out.len, &s, &err), 0,
	    "schema read back");
	ok(s.nfields == RCOLS && s.fields[R_DEC].precision == 5 &&
		s.fields[R_DEC].scale == 2 && s.fields[R_TS].tz != NULL &&
		strcmp(s.fields[R_TS].tz, "Etc/UTC") == 0 &&
		s.fields[R_TSNTZ].tz == NULL && !s.fields[R_NN].nullable &&
		s.fields[R_N].type == SC_ARROW_NULL &&
		s.fields[R_LS].type == SC_ARROW_LARGE_UTF8 &&
		s.fields[R_LBIN].type == SC_ARROW_LARGE_BINARY,
	    "schema attributes survive (decimal, tz, nullability, types)");
	sc_arrow_schema_release(&s);

	/* Empty batch: schema, a 0-row batch, EOS (Spark's empty result). */
	sc_buf_reset(&out);
	is_int(sc_arrow_writer_flush(w, &out, &err), 0, "flush 0 rows");
	got = read_json(out.data, out.len, &c, &err);
	ok(got != NULL && *got == '\0' && c.batches == 1 && c.nrows[0] == 0,
	    "empty batch: one batch of 0 rows");
	sc_buf_release(&c.text);

	/* Multi-batch stream: schema, batches of 2, 0 and 2 rows, EOS. */
	sc_buf_reset(&out);
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &out, &err);
	all_types_row(w, 0, &err);
	all_types_row(w, 1, &err);
	sc_arrow_writer_flush_batch(w, &out, &err);
	sc_arrow_writer_flush_batch(w, &out, &err);
	all_types_row(w, 2, &err);
	all_types_row(w, 3, &err);
	sc_arrow_writer_flush_batch(w, &out, &err);
	sc_arrow_write_eos(&out, &err);
	got = read_json(out.data, out.len, &c, &err);
	is_str(got, all_types_json, "multi-batch stream, same rows");
	ok(c.batches == 3 && c.nrows[0] == 2 && c.nrows[1] == 0 &&
		c.nrows[2] == 2,
	    "batches of 2, 0 and 2 rows");
	sc_buf_release(&c.text);

	/* A callback error stops the stream and is passed through. */
	collect_init(&c);
	c.fail_at = 1;
	ok(sc_arrow_read_stream(out.data, out.len, collect_fn, &c, &err) ==
		    -1 &&
		err.status == SC_ST_IO &&
		strcmp(err.msg, "stop at batch 1") == 0 && c.batches == 1,
	    "callback error stops reading and keeps its message");
	sc_buf_release(&c.text);

	/* Schema-only stream. */
	sc_buf_reset(&out);
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &out, &err);
	sc_arrow_write_eos(&out, &err);
	got = read_json(out.data, out.len, &c, &err);
	ok(got != NULL && c.batches == 0, "schema-only stream: no batches");
	sc_buf_release(&c.text);

	sc_arrow_writer_free(w);
	sc_buf_release(&out);
}

/* ---- formatting ------------------------------------------------------- */

struct fmt_case {
	const char *text;
	int kind;
};

/* Write one column of values with fn, read back, check text and kinds. */
struct one_col {
	enum sc_arrow_type type;
	int precision, scale;
	const struct fmt_case *want;
	size_t n;
	const char *name;
	int bad;
};

static int
one_col_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct one_col *oc = arg;
	struct sc_buf t;
	size_t r;
	int kind;

	sc_buf_init(&t, SC_BUF_UNLIMITED);
	for (r = 0; r < b->nrows && r < oc->n; r++) {
		sc_buf_reset(&t);
		kind = -1;
		if (sc_arrow_format_value(b, 0, r, SC_ARROW_FMT_TEXT, &t, &kind,
			err) == -1)
			return -1;
		if (strcmp((char *)t.data, oc->want[r].text) != 0 ||
		    kind != oc->want[r].kind) {
			printf("# %s row %zu: got '%s' kind %d, want '%s' "
			       "kind %d\n",
			    oc->name, r, (char *)t.data, kind, oc->want[r].text,
			    oc->want[r].kind);
			oc->bad++;
		}
	}
	sc_buf_release(&t);
	return 0;
}

typedef int append_fn(struct sc_arrow_writer *, size_t, const void *,
    struct sc_error *);

static void
check_col(struct one_col *oc, append_fn *fn, const void *vals, size_t vsz)
{
	struct sc_arrow_schema s;
	struct sc_arrow_field *f;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	size_t i;
	int rc;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&s);
	f = sc_arrow_schema_add(&s, "v", oc->type, true);
	f->precision = oc->precision;
	f->scale = oc->scale;
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	for (i = 0; i < oc->n; i++)
		if (fn(w, 0, (const char *)vals + i * vsz, &err) == -1 ||
		    sc_arrow_writer_end_row(w, &err) == -1)
			break;
	sc_arrow_writer_flush(w, &out, &err);
	sc_arrow_writer_free(w);
	oc->bad = 0;
	rc = sc_arrow_read_stream(out.data, out.len, one_col_fn, oc, &err);
	ok(rc == 0 && i == oc->n && oc->bad == 0, "text format: %s", oc->name);
	sc_buf_release(&out);
}

static int
app_double(struct sc_arrow_writer *w, size_t c, const void *v,
    struct sc_error *err)
{
	return sc_arrow_append_double(w, c, *(const double *)v, err);
}

static int
app_int(struct sc_arrow_writer *w, size_t c, const void *v,
    struct sc_error *err)
{
	return sc_arrow_append_int64(w, c, *(const int64_t *)v, err);
}

static int
app_str(struct sc_arrow_writer *w, size_t c, const void *v,
    struct sc_error *err)
{
	const char *s = *(const char *const *)v;

	if (s == NULL)
		return sc_arrow_append_null(w, c, err);
	if (w &&
	    sc_arrow_writer_schema(w)->fields[0].type == SC_ARROW_DECIMAL128)
		return sc_arrow_append_decimal_str(w, c, s, err);
	return sc_arrow_append_bytes(w, c, s, strlen(s), err);
}

static void
test_format(void)
{
	static const double dv[] = { 0.1, -0.0, 0.0, 1e7, 9999999.0, 1e-3, 1e-4,
		123456789.125, 5e-324, DBL_MAX, 100.0, 2.0 / 3, 1e21, 12345.678,
		-1.5, NAN, INFINITY, -INFINITY };
	static const struct fmt_case dw[] = { { "0.1", 2 }, { "-0.0", 2 },
		{ "0.0", 2 }, { "1.0E7", 2 }, { "9999999.0", 2 },
		{ "0.001", 2 }, { "1.0E-4", 2 }, { "1.23456789125E8", 2 },
		{ "4.9E-324", 2 }, { "1.7976931348623157E308", 2 },
		{ "100.0", 2 }, { "0.6666666666666666", 2 }, { "1.0E21", 2 },
		{ "12345.678", 2 }, { "-1.5", 2 }, { "NaN", 1 },
		{ "Infinity", 1 }, { "-Infinity", 1 } };
	static const double fv[] = { 0.1f, 1e-45f, FLT_MAX, 16777216.0f,
		1.17549435e-38f, 0.3f, 3.14159f };
	static const struct fmt_case fw[] = { { "0.1", 2 }, { "1.4E-45", 2 },
		{ "3.4028235E38", 2 }, { "1.6777216E7", 2 },
		{ "1.1754944E-38", 2 }, { "0.3", 2 }, { "3.14159", 2 } };
	static const int64_t datev[] = { 0, -1, 11016, -719528, -719529,
		2932896, 2932897 };
	static const struct fmt_case datew[] = { { "1970-01-01", 1 },
		{ "1969-12-31", 1 }, { "2000-02-29", 1 }, { "0000-01-01", 1 },
		{ "-0001-12-31", 1 }, { "9999-12-31", 1 },
		{ "+10000-01-01", 1 } };
	static const int64_t tsv[] = { 0, -1, 1500, 1700000000123456LL,
		INT64_MAX, INT64_MIN, -62135596800000000LL };
	static const struct fmt_case tsw[] = { { "1970-01-01 00:00:00", 1 },
		{ "1969-12-31 23:59:59.999999", 1 },
		{ "1970-01-01 00:00:00.0015", 1 },
		{ "2023-11-14 22:13:20.123456", 1 },
		{ "+294247-01-10 04:00:54.775807", 1 },
		{ "-290308-12-21 19:59:05.224192", 1 },
		{ "0001-01-01 00:00:00", 1 } };
	static const int64_t i8v[] = { -128, 127, 0 };
	static const struct fmt_case i8w[] = { { "-128", 2 }, { "127", 2 },
		{ "0", 2 } };
	static const char *const decv[] = { "12.3", "-0.05", "0", "-999.99",
		"0.005", "-0.005", "1.004", NULL };
	static const struct fmt_case decw[] = { { "12.30", 2 }, { "-0.05", 2 },
		{ "0.00", 2 }, { "-999.99", 2 }, { "0.01", 2 }, { "-0.01", 2 },
		{ "1.00", 2 }, { "", 0 } };
	static const char *const dec38v[] = {
		"99999999999999999999999999999999999999",
		"-99999999999999999999999999999999999999"
	};
	static const struct fmt_case dec38w[] = {
		{ "99999999999999999999999999999999999999", 2 },
		{ "-99999999999999999999999999999999999999", 2 }
	};
	static const char *const decsv[] = {
		"0.00000000000000000000000000000000000001", "-0.1"
	};
	static const struct fmt_case decsw[] = {
		{ "0.00000000000000000000000000000000000001", 2 },
		{ "-0.10000000000000000000000000000000000000", 2 }
	};
	static const char *const sv[] = { "a\"b\\c\x01\n\t\x7f",
		"a\xff"
		"b",
		"\xe2\x82", "\xed\xa0\x80",
		"\xf0\x9f\x98"
		"x",
		"\xf0\x9f\x98\x80", "", NULL };
	static const struct fmt_case sw[] = { { "a\"b\\c\x01\n\t\x7f", 1 },
		{ "a\xef\xbf\xbd"
		  "b",
		    1 },
		{ "\xef\xbf\xbd", 1 },
		{ "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1 },
		{ "\xef\xbf\xbdx", 1 }, { "\xf0\x9f\x98\x80", 1 }, { "", 1 },
		{ "", 0 } };
	static const char *const binv[] = { "\x01\xab", "", NULL };
	static const struct fmt_case binw[] = { { "01ab", 1 }, { "", 1 },
		{ "", 0 } };
	struct one_col oc;

#define CHECK(t, p, s, vals, w, nm, fn)                                  \
	do {                                                             \
		oc = (struct one_col){ t, p, s, w, SC_NELEM(w), nm, 0 }; \
		check_col(&oc, fn, vals, sizeof(vals[0]));               \
	} while (0)
	CHECK(SC_ARROW_DOUBLE, 0, 0, dv, dw, "double", app_double);
	CHECK(SC_ARROW_FLOAT, 0, 0, fv, fw, "float", app_double);
	CHECK(SC_ARROW_DATE32, 0, 0, datev, datew, "date32", app_int);
	CHECK(SC_ARROW_TIMESTAMP_US, 0, 0, tsv, tsw, "timestamp", app_int);
	CHECK(SC_ARROW_INT8, 0, 0, i8v, i8w, "int8", app_int);
	CHECK(SC_ARROW_DECIMAL128, 5, 2, decv, decw, "decimal(5,2)", app_str);
	CHECK(SC_ARROW_DECIMAL128, 38, 0, dec38v, dec38w, "decimal(38,0)",
	    app_str);
	CHECK(SC_ARROW_DECIMAL128, 38, 38, decsv, decsw, "decimal(38,38)",
	    app_str);
	CHECK(SC_ARROW_UTF8, 0, 0, sv, sw, "utf8 (invalid UTF-8 replaced)",
	    app_str);
	CHECK(SC_ARROW_BINARY, 0, 0, binv, binw, "binary as hex", app_str);
#undef CHECK
}

static void
test_format_json(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	struct collect c;
	const char *got;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "s", SC_ARROW_UTF8, true);
	sc_arrow_schema_add(&s, "d", SC_ARROW_DOUBLE, true);
	sc_arrow_schema_add(&s, "b", SC_ARROW_BOOL, false);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	sc_arrow_append_bytes(w, 0, "q\"\\\b\f\n\r\t\x01\x1f\x7f\xe2\x80\xa8",
	    14, &err);
	sc_arrow_append_double(w, 1, NAN, &err);
	sc_arrow_append_bool(w, 2, false, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_null(w, 0, &err);
	sc_arrow_append_double(w, 1, -INFINITY, &err);
	sc_arrow_append_bool(w, 2, true, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_writer_flush(w, &out, &err);
	sc_arrow_writer_free(w);
	got = read_json(out.data, out.len, &c, &err);
	is_str(got,
	    "{\"s\":\"q\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f"
	    "\xe2\x80\xa8\",\"d\":\"NaN\",\"b\":false}\n"
	    "{\"s\":null,\"d\":\"-Infinity\",\"b\":true}\n",
	    "JSON escapes like JSON.stringify; NaN/Infinity as strings");
	sc_buf_release(&c.text);
	sc_buf_release(&out);
}

/* ---- nested (read only) --------------------------------------------- */

static int
nested_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct sc_buf *t = arg;
	int kind = -1;

	if (sc_arrow_format_value(b, 0, 0, SC_ARROW_FMT_TEXT, t, &kind, err) ==
	    -1)
		return -1;
	sc_buf_addf(t, NULL, "|%d|", kind);
	sc_arrow_format_value(b, 0, 2, SC_ARROW_FMT_TEXT, t, &kind, err);
	sc_buf_addf(t, NULL, "|%d|", kind);
	sc_arrow_format_value(b, 1, 0, SC_ARROW_FMT_JSON, t, &kind, err);
	sc_buf_addf(t, NULL, "|%d", kind);
	return 0;
}

/* "name:type(children...)" for a field and its children. */
static void
type_tree(const struct sc_arrow_field *f, struct sc_buf *out)
{
	size_t i;

	sc_buf_addf(out, NULL, "%s:%s", f->name, sc_arrow_type_name(f->type));
	if (f->nchildren == 0)
		return;
	sc_buf_addch(out, '(', NULL);
	for (i = 0; i < f->nchildren; i++) {
		if (i > 0)
			sc_buf_addch(out, ',', NULL);
		type_tree(&f->children[i], out);
	}
	sc_buf_addch(out, ')', NULL);
}

static void
test_nested(void)
{
	struct sc_arrow_schema s;
	struct sc_error err;
	struct sc_buf t;
	struct collect c;
	size_t i;
	const char *got;

	got = read_json(js_nested, sizeof(js_nested), &c, &err);
	is_str(got,
	    "{\"st\":{\"a\":7,\"b\":[\"x\",null]},\"m\":null,\"ll\":[1,2,3]}\n"
	    "{\"st\":{\"a\":-8,\"b\":null},\"m\":{\"a\":1,\"b\":-2},"
	    "\"ll\":[]}\n"
	    "{\"st\":null,\"m\":{\"cd\":null},\"ll\":[-4]}\n",
	    "apache-arrow nested stream: struct, list, map, large list");
	sc_buf_release(&c.text);

	sc_buf_init(&t, SC_BUF_UNLIMITED);
	sc_error_init(&err);
	sc_arrow_read_stream(js_nested, sizeof(js_nested), nested_fn, &t, &err);
	is_str((char *)t.data, "{\"a\":7,\"b\":[\"x\",null]}|4||0|null|0",
	    "nested TEXT is JSON text, kind JSON; nulls kind NULL");
	sc_buf_reset(&t);

	is_int(sc_arrow_read_schema(js_nested, sizeof(js_nested), &s, &err), 0,
	    "nested schema");
	for (i = 0; i < s.nfields; i++) {
		type_tree(&s.fields[i], &t);
		sc_buf_addch(&t, ';', &err);
	}
	is_str((char *)t.data,
	    "st:struct(a:int32,b:list(element:utf8));"
	    "m:map(entries:struct(key:utf8,value:int64));"
	    "ll:large_list(element:int16);",
	    "nested schema: names and types at every level");
	ok(s.fields[1].nchildren == 1 &&
		strcmp(s.fields[1].children[0].name, "entries") == 0 &&
		s.fields[1].children[0].nchildren == 2 &&
		s.fields[2].type == SC_ARROW_LARGE_LIST,
	    "map keeps its entries struct; large list type");
	sc_arrow_schema_release(&s);
	sc_buf_release(&t);
}

/* ---- writer errors ---------------------------------------------------- */

static void
test_writer_errors(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_field *f;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	struct collect c;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "a", SC_ARROW_INT8, false);
	f = sc_arrow_schema_add(&s, "dec", SC_ARROW_DECIMAL128, true);
	f->precision = 4;
	f->scale = 1;
	f = sc_arrow_schema_add(&s, "st", SC_ARROW_LARGE_LIST, true);
	f->children = sc_xcalloc(1, sizeof(*f->children));
	f->children[0].name = sc_xstrdup("x");
	f->children[0].type = SC_ARROW_INT32;
	f->children[0].nullable = true;
	f->nchildren = 1;
	ok(sc_arrow_writer_new(&s, &err) == NULL &&
		err.status == SC_ST_INTERNAL,
	    "large list column: no writer");
	is_str(err.msg, "cannot write nested Arrow column 'st'",
	    "nested column message");
	s.nfields = 2; /* drop "st" for the writer */
	w = sc_arrow_writer_new(&s, &err);
	s.nfields = 3;
	sc_arrow_schema_release(&s);

	ok(sc_arrow_append_int64(w, 0, 200, &err) == -1 &&
		err.status == SC_ST_FAILED,
	    "int8 overflow rejected");
	is_str(err.msg, "value 200 out of range for int8 column 'a'",
	    "int8 overflow message");
	ok(sc_arrow_append_null(w, 0, &err) == -1 && err.status == SC_ST_FAILED,
	    "null in non-nullable rejected");
	is_str(err.msg, "null value in non-nullable column 'a'",
	    "non-nullable message");
	ok(sc_arrow_append_double(w, 0, 1.0, &err) == -1 &&
		err.status == SC_ST_INTERNAL,
	    "double into int8 rejected");
	is_str(err.msg,
	    "cannot append a floating-point value to Arrow int8 column 'a'",
	    "wrong kind message");
	ok(sc_arrow_append_int64(w, 5, 1, &err) == -1 &&
		err.status == SC_ST_INTERNAL,
	    "column out of range");
	ok(sc_arrow_append_decimal_str(w, 1, "1000.0", &err) == -1 &&
		err.status == SC_ST_FAILED,
	    "decimal over precision rejected");
	is_str(err.msg,
	    "decimal value out of range for decimal(4,1) column "
	    "'dec'",
	    "decimal precision message");
	ok(sc_arrow_append_decimal_str(w, 1, "1.2.3", &err) == -1,
	    "bad decimal literal rejected");
	is_str(err.msg, "invalid decimal literal '1.2.3' for column 'dec'",
	    "bad decimal literal message");
	ok(sc_arrow_append_decimal128(w, 1, 0, 10000, &err) == -1,
	    "decimal128 over precision rejected");
	ok(sc_arrow_append_decimal128(w, 1, -1, (uint64_t)-9999, &err) == 0,
	    "decimal128 -999.9 accepted");

	/* Row 0 is now partial (dec only): a second value is refused... */
	ok(sc_arrow_append_decimal_str(w, 1, "1", &err) == -1 &&
		err.status == SC_ST_INTERNAL,
	    "second value in one row refused");
	is_str(err.msg, "Arrow column 'dec' already has a value for row 0",
	    "second value message");
	/* ...and end_row fails and discards the partial row. */
	ok(sc_arrow_writer_end_row(w, &err) == -1 &&
		err.status == SC_ST_INTERNAL,
	    "incomplete row refused");
	is_str(err.msg, "Arrow row 0 has no value for column 'a'",
	    "incomplete row message");
	is_int(sc_arrow_writer_rows(w), 0, "partial row discarded");
	sc_arrow_append_int64(w, 0, -5, &err);
	sc_arrow_append_decimal_str(w, 1, "-12.35", &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_int64(w, 0, 7, &err);
	sc_arrow_append_null(w, 1, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_writer_flush(w, &out, &err);
	is_str(read_json(out.data, out.len, &c, &err),
	    "{\"a\":-5,\"dec\":-12.4}\n{\"a\":7,\"dec\":null}\n",
	    "rows after a discarded partial row are intact");
	sc_buf_release(&c.text);

	/* A buffer limit too small fails cleanly. */
	sc_buf_release(&out);
	sc_buf_init(&out, 100);
	sc_arrow_append_int64(w, 0, 1, &err);
	sc_arrow_append_null(w, 1, &err);
	sc_arrow_writer_end_row(w, &err);
	ok(sc_arrow_writer_flush(w, &out, &err) == -1 && out.len == 0,
	    "flush over the output limit fails");
	sc_arrow_writer_free(w);
	sc_buf_release(&out);
}

/* ---- malformed input -------------------------------------------------- */

static void
test_malformed(void)
{
	uint8_t b[sizeof(example) + 16];
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	struct collect c;
	size_t n, bad = 0, body;

	sc_error_init(&err);
	expect_error(example, 0, "empty Arrow stream: no schema", "empty");
	expect_error(example, 300, "truncated Arrow stream", "truncated body");
	expect_error(example, 130, "truncated Arrow stream",
	    "truncated prefix");
	expect_error(example, 3, "truncated Arrow stream", "3 bytes");
	for (n = 1; n < sizeof(example); n++) {
		if (n == 128 || n == 304)
			continue; /* valid: no end-of-stream marker */
		if (read_json(example, n, &c, &err) != NULL ||
		    err.status != SC_ST_PROTOCOL)
			bad++;
		sc_buf_release(&c.text);
	}
	is_int(bad, 0, "every other truncation is a protocol error");

	patched(b, 93, 9);
	expect_error(b, sizeof(example),
	    "unsupported Arrow type 'Time' for field 'id'", "Time type");
	patched(b, 93, 99);
	expect_error(b, sizeof(example),
	    "unsupported Arrow type 'type tag 99' for field 'id'",
	    "unknown type tag");
	patched(b, 120, 0);
	expect_error(b, sizeof(example),
	    "unsupported Arrow type 'uint64' for field 'id'", "unsigned");
	patched(b, 72, 8);
	expect_error(b, sizeof(example),
	    "Arrow dictionary-encoded field 'id' unsupported", "dictionary");
	patched(b, 174, 2);
	expect_error(b, sizeof(example), "Arrow dictionary batches unsupported",
	    "dictionary batch");
	patched(b, 174, 1);
	expect_error(b, sizeof(example),
	    "unexpected second Arrow schema message", "second schema");
	patched(b, 174, 4);
	expect_error(b, sizeof(example), "unsupported Arrow message type 4",
	    "tensor message");
	patched(b, 32, 5);
	expect_error(b, sizeof(example),
	    "unsupported Arrow metadata version V6", "version");
	patched(b, 40, 0x4c);
	expect_error(b, sizeof(example), "big-endian Arrow data unsupported",
	    "big endian");
	patched(b, 264, 0);
	b[265] = 1;
	expect_error(b, sizeof(example),
	    "malformed Arrow record batch: "
	    "buffer outside the body (field 'id')",
	    "buffer outside body");
	patched(b, 264, 16);
	expect_error(b, sizeof(example),
	    "malformed Arrow record batch: "
	    "values buffer too short (field 'id')",
	    "short values");
	patched(b, 224, 4);
	expect_error(b, sizeof(example),
	    "malformed Arrow record batch: "
	    "bad null count (field 'id')",
	    "null count");
	patched(b, 216, 2);
	expect_error(b, sizeof(example),
	    "malformed Arrow record batch: "
	    "column 'id' has 2 rows, the batch 3",
	    "column length");
	patched(b, 212, 2);
	expect_error(b, sizeof(example),
	    "malformed Arrow record batch: "
	    "2 nodes and 2 buffers, the schema needs 1 and 2",
	    "node count");
	patched(b, 212, 200);
	expect_error(b, sizeof(example),
	    "malformed Arrow metadata: "
	    "vector out of bounds",
	    "node vector too long");
	patched(b, 136, 0);
	expect_error(b, sizeof(example),
	    "malformed Arrow metadata: "
	    "offset out of bounds",
	    "zero root offset");
	patched(b, 24, 0x0d);
	expect_error(b, sizeof(example),
	    "malformed Arrow metadata: "
	    "vtable out of bounds",
	    "odd vtable");
	patched(b, 12, 3);
	expect_error(b, sizeof(example),
	    "malformed Arrow metadata: "
	    "bad vtable size",
	    "vtable size");
	patched(b, 4, 0xfe);
	b[5] = 0xff;
	b[6] = 0xff;
	b[7] = 0xff;
	expect_error(b, sizeof(example),
	    "malformed Arrow stream: "
	    "bad message length -2",
	    "negative length");
	expect_error(example + 128, sizeof(example) - 128,
	    "Arrow stream does not start with a schema", "no schema");
	memcpy(b, example, sizeof(example));
	memset(b + sizeof(example), 0, 8);
	expect_error(b, sizeof(example) + 8,
	    "malformed Arrow stream: "
	    "8 bytes after the end-of-stream marker",
	    "trailing bytes");

	/*
	 * Compression: grow the batch metadata by 8 bytes holding an empty
	 * BodyCompression table (vtable [4, 4] + soffset), and point a new
	 * vtable entry (id 3) at a uoffset in the table's padding.
	 */
	memcpy(b, example, 272);
	b[132] = 144; /* M = 144 */
	b[176] = 12; /* RecordBatch vtable: 4 entries */
	b[178] = 24; /* table size */
	b[186] = 20; /* id 3 (compression) at table + 20 */
	b[208] = 140 - 72; /* uoffset at fb 72 -> fb 140 */
	memcpy(b + 272, "\x04\x00\x04\x00\x04\x00\x00\x00", 8);
	memcpy(b + 280, example + 272, 40);
	expect_error(b, 320,
	    "compressed Arrow batches unsupported; set "
	    "spark.sql.execution.arrow.compression.codec=none",
	    "compression");
	b[186] = 0; /* the same, compression absent */
	is_str(read_json(b, 320, &c, &err),
	    "{\"id\":1}\n{\"id\":null}\n"
	    "{\"id\":3}\n",
	    "same stream without compression reads");
	sc_buf_release(&c.text);

	/* Bad utf8 offsets: {s: utf8} ["ab", "c"], body 8 + 16 + 8 bytes. */
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "s", SC_ARROW_UTF8, true);
	w = sc_arrow_writer_new(&s, &err);
	sc_arrow_schema_release(&s);
	sc_arrow_append_bytes(w, 0, "ab", 2, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_append_bytes(w, 0, "c", 1, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_writer_flush(w, &out, &err);
	sc_arrow_writer_free(w);
	body = out.len - 8 - 32;
	is_str(read_json(out.data, out.len, &c, &err),
	    "{\"s\":\"ab\"}\n{\"s\":\"c\"}\n", "utf8 stream reads");
	sc_buf_release(&c.text);
	put32(out.data + body + 16, 100);
	expect_error(out.data, out.len,
	    "malformed Arrow record batch: "
	    "offsets beyond the data (field 's')",
	    "offsets beyond data");
	put32(out.data + body + 16, 3);
	put32(out.data + body + 12, 5);
	expect_error(out.data, out.len,
	    "malformed Arrow record batch: "
	    "offsets not increasing (field 's')",
	    "decreasing offsets");
	put32(out.data + body + 12, 2);
	put32(out.data + body + 8, 0xffffffff);
	expect_error(out.data, out.len,
	    "malformed Arrow record batch: "
	    "offsets not increasing (field 's')",
	    "negative offset");
	sc_buf_release(&out);
}

/* ---- mutation fuzz ----------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Touch every value through every accessor, output bounded. */
static int
fuzz_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct sc_buf t;
	const uint8_t *p;
	size_t r, c, n;
	int64_t i, hi;
	uint64_t lo;
	double d;
	int kind;

	(void)arg;
	(void)err;
	sc_buf_init(&t, 1 << 20);
	for (r = 0; r < b->nrows && r < 64; r++)
		for (c = 0; c < b->schema->nfields; c++) {
			(void)sc_arrow_is_null(b, c, r);
			(void)sc_arrow_get_int64(b, c, r, &i);
			(void)sc_arrow_get_double(b, c, r, &d);
			(void)sc_arrow_get_bytes(b, c, r, &p, &n);
			(void)sc_arrow_get_decimal128(b, c, r, &hi, &lo);
			(void)sc_arrow_format_value(b, c, r, SC_ARROW_FMT_JSON,
			    &t, &kind, NULL);
			(void)sc_arrow_format_value(b, c, r, SC_ARROW_FMT_TEXT,
			    &t, &kind, NULL);
			if (t.len > (1 << 19))
				sc_buf_reset(&t);
		}
	sc_buf_release(&t);
	return 0;
}

static void
fuzz_one(const uint8_t *src, size_t n, int rounds, const char *name)
{
	struct sc_arrow_schema s;
	struct sc_error err;
	uint8_t *m = sc_xmalloc(n);
	size_t len, k, pos;
	int i, nmut, accepted = 0, rejected = 0;

	for (i = 0; i < rounds; i++) {
		memcpy(m, src, n);
		len = n;
		nmut = 1 + (int)(rng() % 4);
		for (k = 0; k < (size_t)nmut; k++) {
			pos = rng() % n;
			switch (rng() % 6) {
			case 0:
				m[pos] ^= (uint8_t)(1u << (rng() % 8));
				break;
			case 1:
				m[pos] = (uint8_t)rng();
				break;
			case 2:
				m[pos] = 0xff;
				break;
			case 3:
				m[pos] = 0;
				break;
			case 4:
				m[pos] = 0x7f;
				break;
			default:
				len = pos; /* truncate */
				break;
			}
		}
		sc_error_init(&err);
		if (sc_arrow_read_stream(m, len, fuzz_fn, NULL, &err) == 0)
			accepted++;
		else if (err.status == SC_ST_PROTOCOL && err.msg[0])
			rejected++;
		if (sc_arrow_read_schema(m, len, &s, &err) == 0)
			sc_arrow_schema_release(&s);
	}
	free(m);
	ok(accepted + rejected == rounds && accepted > 0 && rejected > 0,
	    "fuzz %s: %d mutations, %d accepted, %d rejected, no crash", name,
	    rounds, accepted, rejected);
}

static void
test_fuzz(void)
{
	struct sc_arrow_writer *w = all_types_writer();
	struct sc_error err;
	struct sc_buf out;
	int r;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	sc_arrow_write_schema(sc_arrow_writer_schema(w), &out, &err);
	for (r = 0; r < 4; r++)
		all_types_row(w, r, &err);
	sc_arrow_writer_flush_batch(w, &out, &err);
	for (r = 0; r < 3; r++)
		all_types_row(w, r, &err);
	sc_arrow_writer_flush_batch(w, &out, &err);
	sc_arrow_write_eos(&out, &err);
	sc_arrow_writer_free(w);

	fuzz_one(out.data, out.len, 8000, "all writable types");
	fuzz_one(js_nested, sizeof(js_nested), 8000, "apache-arrow nested");
	fuzz_one(js_example, sizeof(js_example), 2000, "apache-arrow int64");
	fuzz_one(example, sizeof(example), 2000, "section 6");
	sc_buf_release(&out);
}

struct seqcheck {
	size_t rows;
	int64_t sum;
	size_t nulls;
	int bad;
	int64_t last;
};

static int
seq_batch(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct seqcheck *c = arg;
	size_t r;
	int64_t v;

	(void)err;
	for (r = 0; r < b->nrows; r++) {
		if (sc_arrow_is_null(b, 0, r)) {
			c->nulls++;
			continue;
		}
		if (sc_arrow_get_int64(b, 0, r, &v) == -1)
			c->bad++;
		c->sum += v;
		c->last = v;
	}
	c->rows += b->nrows;
	return 0;
}

/* The bulk int64 sequence append equals row-by-row appends. */
static void
test_int64_seq(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	struct seqcheck c;

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, true);
	w = sc_arrow_writer_new(&s, &err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	/* 3 single rows leave the validity bitmap mid-byte. */
	ok(sc_arrow_append_int64(w, 0, 100, &err) == 0 &&
		sc_arrow_writer_end_row(w, &err) == 0 &&
		sc_arrow_append_int64(w, 0, 101, &err) == 0 &&
		sc_arrow_writer_end_row(w, &err) == 0 &&
		sc_arrow_append_int64(w, 0, 102, &err) == 0 &&
		sc_arrow_writer_end_row(w, &err) == 0,
	    "seq: three single rows");
	ok(sc_arrow_append_int64_seq(w, 5, 3, 1001, &err) == 0,
	    "seq: 1001 rows 5, 8, ... appended");
	is_int(sc_arrow_writer_rows(w), 1004, "seq: row count");
	ok(sc_arrow_append_null(w, 0, &err) == 0 &&
		sc_arrow_writer_end_row(w, &err) == 0,
	    "seq: a null after it");
	ok(sc_arrow_append_int64_seq(w, -1, -1, 0, &err) == 0,
	    "seq: zero rows is a no-op");
	ok(sc_arrow_writer_flush(w, &out, &err) == 0, "seq: flush");
	memset(&c, 0, sizeof(c));
	ok(sc_arrow_read_stream(out.data, out.len, seq_batch, &c, &err) == 0,
	    "seq: reader accepts the batch");
	is_int(c.rows, 1005, "seq: rows read back");
	is_int(c.nulls, 1, "seq: exactly the one null");
	is_int(c.bad, 0, "seq: every value readable");
	/* 100+101+102 + sum(5 + 3k, k < 1001) = 303 + 5005 + 3*500500 */
	is_int(c.sum, 303 + 5005 + 1501500, "seq: checksum of the values");
	is_int(c.last, 5 + 3 * 1000, "seq: last value");
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);

	/*
	 * A fresh column keeps the sequence lazily and writes it at flush;
	 * a continuing sequence extends it, anything else makes it real.
	 */
	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "id", SC_ARROW_INT64, false);
	w = sc_arrow_writer_new(&s, &err);
	ok(sc_arrow_append_int64_seq(w, 10, 2, 5, &err) == 0 &&
		sc_arrow_append_int64_seq(w, 20, 2, 3, &err) == 0 &&
		sc_arrow_append_int64_seq(w, 100, 1, 2, &err) == 0 &&
		sc_arrow_append_int64(w, 0, 7, &err) == 0 &&
		sc_arrow_writer_end_row(w, &err) == 0,
	    "lazy seq: extend, break and a single row");
	is_int(sc_arrow_writer_bytes(w), 8 * 11 + 8,
	    "lazy seq: byte estimate counts the virtual values");
	sc_buf_reset(&out);
	ok(sc_arrow_writer_flush(w, &out, &err) == 0, "lazy seq: flush");
	memset(&c, 0, sizeof(c));
	ok(sc_arrow_read_stream(out.data, out.len, seq_batch, &c, &err) == 0,
	    "lazy seq: reader accepts it");
	is_int(c.rows, 11, "lazy seq: rows");
	/* 10..18 step 2 = 70, 20..24 = 66, 100 + 101, 7 */
	is_int(c.sum, 70 + 66 + 201 + 7, "lazy seq: checksum");
	is_int(c.last, 7, "lazy seq: last value");
	ok(sc_arrow_append_int64_seq(w, -5, -1, 1000, &err) == 0,
	    "lazy seq: a whole batch of one sequence");
	sc_buf_reset(&out);
	ok(sc_arrow_writer_flush(w, &out, &err) == 0, "lazy seq: flush 2");
	memset(&c, 0, sizeof(c));
	ok(sc_arrow_read_stream(out.data, out.len, seq_batch, &c, &err) == 0,
	    "lazy seq: second batch readable");
	is_int(c.rows, 1000, "lazy seq: second batch rows");
	is_int(c.sum, -5000 - 499500, "lazy seq: second batch checksum");
	is_int(c.last, -1004, "lazy seq: second batch last value");
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);

	sc_arrow_schema_init(&s);
	sc_arrow_schema_add(&s, "a", SC_ARROW_INT64, false);
	sc_arrow_schema_add(&s, "b", SC_ARROW_INT64, false);
	w = sc_arrow_writer_new(&s, &err);
	ok(sc_arrow_append_int64_seq(w, 0, 1, 10, &err) == -1,
	    "seq: refused for a two-column writer");
	is_str(err.msg, "a sequence needs a one-column Arrow writer",
	    "seq: message");
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);
	sc_buf_release(&out);
}

struct lossless {
	struct sc_buf text;
	enum sc_arrow_fmt fmt;
};

static int
lossless_fn(const struct sc_arrow_batch *b, void *arg, struct sc_error *err)
{
	struct lossless *l = arg;
	size_t r, k;

	for (r = 0; r < b->nrows; r++) {
		for (k = 0; k < b->schema->nfields; k++) {
			if (k > 0)
				sc_buf_addch(&l->text, ' ', NULL);
			if (sc_arrow_format_value(b, k, r, l->fmt, &l->text,
				NULL, err) == -1)
				return -1;
		}
		sc_buf_addch(&l->text, '\n', NULL);
	}
	return 0;
}

/* ---- nested writer ---------------------------------------------- */

static struct sc_arrow_field *
kids(struct sc_arrow_field *f, size_t n)
{
	f->children = sc_xcalloc(n, sizeof(*f->children));
	f->nchildren = n;
	return f->children;
}

static void
kid(struct sc_arrow_field *k, const char *name, enum sc_arrow_type t,
    bool nullable)
{
	k->name = sc_xstrdup(name);
	k->type = t;
	k->nullable = nullable;
}

/* Rows of struct<x:int32 not null, s:utf8>, list<int64>, map<utf8,int32>. */
static void
nested_schema(struct sc_arrow_schema *s)
{
	struct sc_arrow_field *f, *k;

	sc_arrow_schema_init(s);
	f = sc_arrow_schema_add(s, "st", SC_ARROW_STRUCT, true);
	k = kids(f, 2);
	kid(&k[0], "x", SC_ARROW_INT32, false);
	kid(&k[1], "s", SC_ARROW_UTF8, true);
	f = sc_arrow_schema_add(s, "l", SC_ARROW_LIST, true);
	kid(kids(f, 1), "element", SC_ARROW_INT64, true);
	f = sc_arrow_schema_add(s, "m", SC_ARROW_MAP, true);
	k = kids(f, 1);
	kid(k, "entries", SC_ARROW_STRUCT, false);
	k = kids(k, 2);
	kid(&k[0], "key", SC_ARROW_UTF8, false);
	kid(&k[1], "value", SC_ARROW_INT32, true);
}

static void
nested_row(struct sc_arrow_writer *w, int i, struct sc_error *err)
{
	struct sc_arrow_wnode *n, *e;
	char txt[16];
	int j;

	n = sc_arrow_writer_node(w, 0, err);
	if (i % 3 == 2) {
		sc_arrow_wnode_null(n, err);
	} else {
		sc_arrow_wnode_int64(sc_arrow_wnode_child(n, 0), i, err);
		snprintf(txt, sizeof(txt), "s%d", i);
		if (i % 3 == 1)
			sc_arrow_wnode_null(sc_arrow_wnode_child(n, 1), err);
		else
			sc_arrow_wnode_bytes(sc_arrow_wnode_child(n, 1), txt,
			    strlen(txt), err);
		sc_arrow_wnode_end(n, err);
	}
	n = sc_arrow_writer_node(w, 1, err);
	if (i == 1) {
		sc_arrow_wnode_null(n, err);
	} else {
		for (j = 0; j < i; j++)
			sc_arrow_wnode_int64(sc_arrow_wnode_child(n, 0), j * 10,
			    err);
		sc_arrow_wnode_end(n, err);
	}
	n = sc_arrow_writer_node(w, 2, err);
	e = sc_arrow_wnode_child(n, 0);
	for (j = 0; j < i; j++) {
		snprintf(txt, sizeof(txt), "k%d", j);
		sc_arrow_wnode_bytes(sc_arrow_wnode_child(e, 0), txt,
		    strlen(txt), err);
		if (j == 1)
			sc_arrow_wnode_null(sc_arrow_wnode_child(e, 1), err);
		else
			sc_arrow_wnode_int64(sc_arrow_wnode_child(e, 1), j,
			    err);
		sc_arrow_wnode_end(e, err);
	}
	sc_arrow_wnode_end(n, err);
}

static void
test_nested_write(void)
{
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_arrow_wnode *n;
	struct sc_error err;
	struct sc_buf out;
	struct collect c;
	int i, bad = 0;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	nested_schema(&s);
	w = sc_arrow_writer_new(&s, &err);
	ok(w != NULL, "nested writer: struct, list and map columns");
	for (i = 0; i < 4; i++) {
		nested_row(w, i, &err);
		bad += sc_arrow_writer_end_row(w, &err) != 0;
	}
	is_int(bad, 0, "nested writer: four rows");
	is_int(sc_arrow_writer_flush(w, &out, &err), 0, "nested flush");
	is_str(read_json(out.data, out.len, &c, &err),
	    "{\"st\":{\"x\":0,\"s\":\"s0\"},\"l\":[],\"m\":{}}\n"
	    "{\"st\":{\"x\":1,\"s\":null},\"l\":null,\"m\":{\"k0\":0}}\n"
	    "{\"st\":null,\"l\":[0,10],\"m\":{\"k0\":0,\"k1\":null}}\n"
	    "{\"st\":{\"x\":3,\"s\":\"s3\"},\"l\":[0,10,20],"
	    "\"m\":{\"k0\":0,\"k1\":null,\"k2\":2}}\n",
	    "nested values read back as written, nulls at each level");
	sc_buf_release(&c.text);

	/* A second batch starts from empty children. */
	sc_buf_reset(&out);
	nested_row(w, 3, &err);
	sc_arrow_writer_end_row(w, &err);
	sc_arrow_writer_flush(w, &out, &err);
	is_str(read_json(out.data, out.len, &c, &err),
	    "{\"st\":{\"x\":3,\"s\":\"s3\"},\"l\":[0,10,20],"
	    "\"m\":{\"k0\":0,\"k1\":null,\"k2\":2}}\n",
	    "nested: the next batch holds only its own row");
	sc_buf_release(&c.text);

	/* An unfinished struct fails the row, which is dropped. */
	n = sc_arrow_writer_node(w, 0, &err);
	sc_arrow_wnode_int64(sc_arrow_wnode_child(n, 0), 7, &err);
	ok(sc_arrow_wnode_end(n, &err) == -1 && err.status == SC_ST_INTERNAL,
	    "struct end without every field refused");
	is_str(err.msg, "Arrow struct 'st' has no value for its field 's'",
	    "struct end message");
	sc_arrow_wnode_null(sc_arrow_writer_node(w, 1, &err), &err);
	sc_arrow_wnode_null(sc_arrow_writer_node(w, 2, &err), &err);
	ok(sc_arrow_writer_end_row(w, &err) == -1, "partial nested row fails");
	nested_row(w, 2, &err);
	is_int(sc_arrow_writer_end_row(w, &err), 0, "row after a failed one");
	ok(sc_arrow_wnode_bytes(sc_arrow_writer_node(w, 0, &err), "x", 1,
	       &err) == -1,
	    "a column with its value already given is refused");
	sc_buf_reset(&out);
	sc_arrow_writer_flush(w, &out, &err);
	is_str(read_json(out.data, out.len, &c, &err),
	    "{\"st\":null,\"l\":[0,10],\"m\":{\"k0\":0,\"k1\":null}}\n",
	    "the failed row left nothing behind");
	sc_buf_release(&c.text);
	ok(sc_arrow_wnode_bytes(
	       sc_arrow_wnode_child(sc_arrow_writer_node(w, 1, &err), 0), "x",
	       1, &err) == -1 &&
		err.status == SC_ST_INTERNAL,
	    "bytes into a list's int64 element refused");
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);
	sc_buf_release(&out);
}

static void
test_lossless(void)
{
	static const char want[] = "[0,\"s0\"] [] []\n"
				   "[1,null] null [[\"k0\",0]]\n";
	struct sc_arrow_schema s;
	struct sc_arrow_writer *w;
	struct sc_error err;
	struct sc_buf out;
	struct lossless l;
	int i;

	sc_error_init(&err);
	sc_buf_init(&out, SC_BUF_UNLIMITED);
	nested_schema(&s);
	w = sc_arrow_writer_new(&s, &err);
	for (i = 0; i < 2; i++) {
		nested_row(w, i, &err);
		sc_arrow_writer_end_row(w, &err);
	}
	sc_arrow_writer_flush(w, &out, &err);
	sc_buf_init(&l.text, SC_BUF_UNLIMITED);
	l.fmt = SC_ARROW_FMT_LOSSLESS;
	sc_arrow_read_stream(out.data, out.len, lossless_fn, &l, &err);
	is_str((const char *)l.text.data, want,
	    "lossless JSON: structs by position, maps as pairs");
	sc_buf_release(&l.text);
	sc_buf_reset(&out);
	for (i = 1; i < 4; i += 2) {
		nested_row(w, i, &err);
		sc_arrow_writer_end_row(w, &err);
	}
	sc_arrow_writer_flush(w, &out, &err);
	sc_buf_init(&l.text, SC_BUF_UNLIMITED);
	l.fmt = SC_ARROW_FMT_SHOW;
	sc_arrow_read_stream(out.data, out.len, lossless_fn, &l, &err);
	is_str((const char *)l.text.data,
	    "{1, NULL} NULL {k0 -> 0}\n"
	    "{3, s3} [0, 10, 20] {k0 -> 0, k1 -> NULL, k2 -> 2}\n",
	    "show: {struct}, [array], {k -> v}, NULL members");
	sc_buf_release(&l.text);
	sc_arrow_writer_free(w);
	sc_arrow_schema_release(&s);
	sc_buf_release(&out);
}

int
main(void)
{
	test_example_write();
	test_example_read();
	test_roundtrip();
	test_format();
	test_format_json();
	test_nested();
	test_writer_errors();
	test_malformed();
	test_fuzz();
	test_int64_seq();
	test_nested_write();
	test_lossless();
	return tap_done();
}
