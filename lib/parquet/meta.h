/* SPDX-License-Identifier: MIT */

/*
 * meta.h: Parquet's footer and page headers as plain C structs
 * (parquet.thrift's FileMetaData, SchemaElement with its logical and
 * converted types, RowGroup, ColumnChunk, ColumnMetaData, Statistics,
 * PageHeader with data page v1, v2 and dictionary page headers), read
 * from and written in the Thrift compact protocol.  Fields a file may
 * omit carry has_ flags or -1; unknown fields are skipped.
 */

#ifndef SC_PQ_META_H
#define SC_PQ_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;
struct sc_error;
struct sc_thrift_rd;

/* parquet.thrift's enums, by their numbers. */
enum sc_pq_type {
	SC_PQ_BOOLEAN = 0,
	SC_PQ_INT32 = 1,
	SC_PQ_INT64 = 2,
	SC_PQ_INT96 = 3,
	SC_PQ_FLOAT = 4,
	SC_PQ_DOUBLE = 5,
	SC_PQ_BYTE_ARRAY = 6,
	SC_PQ_FIXED = 7
};

enum sc_pq_repetition {
	SC_PQ_REQUIRED = 0,
	SC_PQ_OPTIONAL = 1,
	SC_PQ_REPEATED = 2
};

enum sc_pq_converted {
	SC_PQ_CT_UTF8 = 0,
	SC_PQ_CT_MAP = 1,
	SC_PQ_CT_MAP_KEY_VALUE = 2,
	SC_PQ_CT_LIST = 3,
	SC_PQ_CT_ENUM = 4,
	SC_PQ_CT_DECIMAL = 5,
	SC_PQ_CT_DATE = 6,
	SC_PQ_CT_TIME_MILLIS = 7,
	SC_PQ_CT_TIME_MICROS = 8,
	SC_PQ_CT_TIMESTAMP_MILLIS = 9,
	SC_PQ_CT_TIMESTAMP_MICROS = 10,
	SC_PQ_CT_UINT_8 = 11,
	SC_PQ_CT_UINT_16 = 12,
	SC_PQ_CT_UINT_32 = 13,
	SC_PQ_CT_UINT_64 = 14,
	SC_PQ_CT_INT_8 = 15,
	SC_PQ_CT_INT_16 = 16,
	SC_PQ_CT_INT_32 = 17,
	SC_PQ_CT_INT_64 = 18,
	SC_PQ_CT_JSON = 19,
	SC_PQ_CT_BSON = 20,
	SC_PQ_CT_INTERVAL = 21
};

/* LogicalType's union members, by field id (0: none). */
enum sc_pq_logical_kind {
	SC_PQ_LT_NONE = 0,
	SC_PQ_LT_STRING = 1,
	SC_PQ_LT_MAP = 2,
	SC_PQ_LT_LIST = 3,
	SC_PQ_LT_ENUM = 4,
	SC_PQ_LT_DECIMAL = 5,
	SC_PQ_LT_DATE = 6,
	SC_PQ_LT_TIME = 7,
	SC_PQ_LT_TIMESTAMP = 8,
	SC_PQ_LT_INTEGER = 10,
	SC_PQ_LT_UNKNOWN = 11,
	SC_PQ_LT_JSON = 12,
	SC_PQ_LT_BSON = 13,
	SC_PQ_LT_UUID = 14,
	SC_PQ_LT_FLOAT16 = 15
};

enum sc_pq_unit { SC_PQ_MILLIS = 1, SC_PQ_MICROS = 2, SC_PQ_NANOS = 3 };

enum sc_pq_encoding {
	SC_PQ_PLAIN = 0,
	SC_PQ_PLAIN_DICTIONARY = 2,
	SC_PQ_RLE = 3,
	SC_PQ_BIT_PACKED = 4,
	SC_PQ_DELTA_BINARY_PACKED = 5,
	SC_PQ_DELTA_LENGTH_BYTE_ARRAY = 6,
	SC_PQ_DELTA_BYTE_ARRAY = 7,
	SC_PQ_RLE_DICTIONARY = 8,
	SC_PQ_BYTE_STREAM_SPLIT = 9
};

enum sc_pq_codec {
	SC_PQ_UNCOMPRESSED = 0,
	SC_PQ_SNAPPY = 1,
	SC_PQ_GZIP = 2,
	SC_PQ_LZO = 3,
	SC_PQ_BROTLI = 4,
	SC_PQ_LZ4 = 5,
	SC_PQ_ZSTD = 6,
	SC_PQ_LZ4_RAW = 7
};

enum sc_pq_page_type {
	SC_PQ_DATA_PAGE = 0,
	SC_PQ_INDEX_PAGE = 1,
	SC_PQ_DICTIONARY_PAGE = 2,
	SC_PQ_DATA_PAGE_V2 = 3
};

struct sc_pq_logical {
	int kind; /* enum sc_pq_logical_kind */
	int32_t scale, precision; /* DECIMAL */
	bool utc; /* TIME, TIMESTAMP: isAdjustedToUTC */
	int unit; /* TIME, TIMESTAMP: enum sc_pq_unit */
	int bit_width; /* INTEGER */
	bool is_signed; /* INTEGER */
};

/*
 * Statistics: min_value/max_value, and the deprecated min/max (whose
 * order is undefined for some types), as bytes; NULL when absent.
 */
struct sc_pq_stats {
	uint8_t *min, *max;
	size_t min_len, max_len;
	uint8_t *old_min, *old_max;
	size_t old_min_len, old_max_len;
	bool has_null_count;
	int64_t null_count;
};

struct sc_pq_schema_el {
	char *name;
	int type; /* enum sc_pq_type, or -1 for a group */
	int32_t type_length;
	int repetition; /* enum sc_pq_repetition, or -1 (the root) */
	int32_t num_children;
	int converted; /* enum sc_pq_converted, or -1 */
	int32_t scale, precision; /* for converted DECIMAL; -1 if absent */
	int32_t field_id; /* -1 if absent */
	struct sc_pq_logical logical;
};

struct sc_pq_colmeta {
	int type;
	int32_t *encodings;
	uint32_t nencodings;
	char **path;
	uint32_t npath;
	int codec;
	int64_t num_values;
	int64_t total_uncompressed;
	int64_t total_compressed;
	int64_t data_page_offset;
	int64_t dictionary_page_offset; /* -1 if absent */
	struct sc_pq_stats stats;
};

struct sc_pq_colchunk {
	char *file_path; /* NULL: this file */
	int64_t file_offset;
	bool has_meta;
	struct sc_pq_colmeta meta;
};

struct sc_pq_rowgroup {
	struct sc_pq_colchunk *cols;
	uint32_t ncols;
	int64_t total_byte_size;
	int64_t num_rows;
};

struct sc_pq_kv {
	char *key, *value; /* value may be NULL */
};

struct sc_pq_filemeta {
	int32_t version;
	struct sc_pq_schema_el *schema;
	uint32_t nschema;
	int64_t num_rows;
	struct sc_pq_rowgroup *rowgroups;
	uint32_t nrowgroups;
	struct sc_pq_kv *kv;
	uint32_t nkv;
	char *created_by;
	uint32_t ncolumn_orders; /* written as TYPE_ORDER for each column */
	bool encrypted; /* an encryption algorithm was named */
};

struct sc_pq_pagehdr {
	int type; /* enum sc_pq_page_type */
	int32_t uncompressed_size, compressed_size;
	bool has_crc;
	int32_t crc;
	/* data page (v1 and v2) and dictionary page */
	int32_t num_values;
	int encoding;
	/* v1 */
	int def_encoding, rep_encoding;
	/* v2 */
	int32_t num_nulls, num_rows;
	int32_t def_len, rep_len;
	bool is_compressed; /* default true */
	/* dictionary */
	bool is_sorted;
	bool has_header; /* the header of its type was present */
	struct sc_pq_stats stats; /* data pages */
};

/*
 * Read a FileMetaData (a footer) or a PageHeader from r; on failure err
 * (through r) says what is wrong and *fm holds nothing to release beyond
 * what sc_pq_filemeta_release() frees (it is always safe to call).
 */
int sc_pq_filemeta_read(struct sc_thrift_rd *r, struct sc_pq_filemeta *fm);
void sc_pq_filemeta_release(struct sc_pq_filemeta *fm);
int sc_pq_pagehdr_read(struct sc_thrift_rd *r, struct sc_pq_pagehdr *ph);
void sc_pq_pagehdr_release(struct sc_pq_pagehdr *ph);
void sc_pq_stats_release(struct sc_pq_stats *st);

/* Append the compact encoding of fm or ph to b (failure sticky in b). */
void sc_pq_filemeta_write(struct sc_buf *b, const struct sc_pq_filemeta *fm);
void sc_pq_pagehdr_write(struct sc_buf *b, const struct sc_pq_pagehdr *ph);

/* Names for messages: "SNAPPY", "DELTA_BYTE_ARRAY", "INT96". */
const char *sc_pq_codec_name(int codec);
const char *sc_pq_encoding_name(int enc);
const char *sc_pq_type_name(int type);

#endif
