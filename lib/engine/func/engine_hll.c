/* SPDX-License-Identifier: MIT */

/*
 * engine_hll.c: approx_count_distinct as Spark computes it: HyperLogLog++
 * over XXH64 (seed 42) of each value's bytes as Spark hashes them, the
 * registers of 6 bits, linear counting below Spark's threshold, and
 * the bias correction of its tables (held here for the default
 * precision, 9; other precisions refuse an estimate that needs one).
 */

#include "engine/func/engine_hll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xmem.h"
#include "engine/plan/engine_expr_int.h"
#include "engine/srverror.h"
#include "core/banned.h"

/* ------------------------------------------------------------------ */
/* XXH64                                                               */
/* ------------------------------------------------------------------ */

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static uint64_t
rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static uint64_t
le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t
le32(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	    (uint64_t)p[3] << 24;
}

static uint64_t
round64(uint64_t acc, uint64_t lane)
{
	return rotl(acc + lane * P2, 31) * P1;
}

uint64_t
sc_eng_xxh64(const void *data, size_t n, uint64_t seed)
{
	const unsigned char *p = data, *end = p + n;
	uint64_t h, v[4];
	int i;

	if (n >= 32) {
		v[0] = seed + P1 + P2;
		v[1] = seed + P2;
		v[2] = seed;
		v[3] = seed - P1;
		for (; end - p >= 32; p += 32)
			for (i = 0; i < 4; i++)
				v[i] = round64(v[i], le64(p + 8 * i));
		h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) +
		    rotl(v[3], 18);
		for (i = 0; i < 4; i++)
			h = (h ^ round64(0, v[i])) * P1 + P4;
	} else {
		h = seed + P5;
	}
	h += (uint64_t)n;
	for (; end - p >= 8; p += 8)
		h = rotl(h ^ round64(0, le64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		h = rotl(h ^ le32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

uint64_t
sc_eng_xxh64_int(int32_t v, uint64_t seed)
{
	uint32_t u = (uint32_t)v;
	unsigned char b[4] = { (unsigned char)u, (unsigned char)(u >> 8),
		(unsigned char)(u >> 16), (unsigned char)(u >> 24) };

	return sc_eng_xxh64(b, 4, seed);
}

uint64_t
sc_eng_xxh64_long(int64_t v, uint64_t seed)
{
	uint64_t u = (uint64_t)v;
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(u >> (8 * i));
	return sc_eng_xxh64(b, 8, seed);
}

/* ------------------------------------------------------------------ */
/* HyperLogLog++                                                       */
/* ------------------------------------------------------------------ */

/* Spark's thresholds for linear counting, precision 4 to 18. */
static const double thresholds[] = { 10, 20, 40, 80, 220, 400, 900, 1800, 3100,
	6500, 15500, 20000, 50000, 120000, 350000 };

/*
 * Precision 9: raw estimates and their biases, from the appendix of
 * "HyperLogLog in Practice" as Spark carries them (the difference of
 * each pair is the true cardinality, 1 to 2560).
 */
static const double raw9[] = { 369, 374.8294, 381.2452, 387.6698, 394.1464,
	400.2024, 406.8782, 413.6598, 420.462, 427.2826, 433.7102, 440.7416,
	447.9366, 455.1046, 462.285, 469.0668, 476.306, 483.8448, 491.301,
	498.9886, 506.2422, 513.8138, 521.7074, 529.7428, 537.8402, 545.1664,
	553.3534, 561.594, 569.6886, 577.7876, 585.65, 594.228, 602.8036,
	611.1666, 620.0818, 628.0824, 637.2574, 646.302, 655.1644, 664.0056,
	672.3802, 681.7192, 690.5234, 700.2084, 708.831, 718.485, 728.1112,
	737.4764, 746.76, 756.3368, 766.5538, 775.5058, 785.2646, 795.5902,
	804.3818, 814.8998, 824.9532, 835.2062, 845.2798, 854.4728, 864.9582,
	875.3292, 886.171, 896.781, 906.5716, 916.7048, 927.5322, 937.875,
	949.3972, 958.3464, 969.7274, 980.2834, 992.1444, 1003.4264, 1013.0166,
	1024.018, 1035.0438, 1046.34, 1057.6856, 1068.9836, 1079.0312, 1091.677,
	1102.3188, 1113.4846, 1124.4424, 1135.739, 1147.1488, 1158.9202,
	1169.406, 1181.5342, 1193.2834, 1203.8954, 1216.3286, 1226.2146,
	1239.6684, 1251.9946, 1262.123, 1275.4338, 1285.7378, 1296.076,
	1308.9692, 1320.4964, 1333.0998, 1343.9864, 1357.7754, 1368.3208,
	1380.4838, 1392.7388, 1406.0758, 1416.9098, 1428.9728, 1440.9228,
	1453.9292, 1462.617, 1476.05, 1490.2996, 1500.6128, 1513.7392,
	1524.5174, 1536.6322, 1548.2584, 1562.3766, 1572.423, 1587.1232,
	1596.5164, 1610.5938, 1622.5972, 1633.1222, 1647.7674, 1658.5044,
	1671.57, 1683.7044, 1695.4142, 1708.7102, 1720.6094, 1732.6522,
	1747.841, 1756.4072, 1769.9786, 1782.3276, 1797.5216, 1808.3186,
	1819.0694, 1834.354, 1844.575, 1856.2808, 1871.1288, 1880.7852,
	1893.9622, 1906.3418, 1920.6548, 1932.9302, 1945.8584, 1955.473,
	1968.8248, 1980.6446, 1995.9598, 2008.349, 2019.8556, 2033.0334,
	2044.0206, 2059.3956, 2069.9174, 2082.6084, 2093.7036, 2106.6108,
	2118.9124, 2132.301, 2144.7628, 2159.8422, 2171.0212, 2183.101,
	2193.5112, 2208.052, 2221.3194, 2233.3282, 2247.295, 2257.7222,
	2273.342, 2286.5638, 2299.6786, 2310.8114, 2322.3312, 2335.516,
	2349.874, 2363.5968, 2373.865, 2387.1918, 2401.8328, 2414.8496,
	2424.544, 2436.7592, 2447.1682, 2464.1958, 2474.3438, 2489.0006,
	2497.4526, 2513.6586, 2527.19, 2540.7028, 2553.768 };

static const double bias9[] = { 368, 361.8294, 355.2452, 348.6698, 342.1464,
	336.2024, 329.8782, 323.6598, 317.462, 311.2826, 305.7102, 299.7416,
	293.9366, 288.1046, 282.285, 277.0668, 271.306, 265.8448, 260.301,
	254.9886, 250.2422, 244.8138, 239.7074, 234.7428, 229.8402, 225.1664,
	220.3534, 215.594, 210.6886, 205.7876, 201.65, 197.228, 192.8036,
	188.1666, 184.0818, 180.0824, 176.2574, 172.302, 168.1644, 164.0056,
	160.3802, 156.7192, 152.5234, 149.2084, 145.831, 142.485, 139.1112,
	135.4764, 131.76, 129.3368, 126.5538, 122.5058, 119.2646, 116.5902,
	113.3818, 110.8998, 107.9532, 105.2062, 102.2798, 99.4728, 96.9582,
	94.3292, 92.171, 89.7809999999999, 87.5716, 84.7048, 82.5322, 79.875,
	78.3972, 75.3464, 73.7274, 71.2834, 70.1444, 68.4263999999999, 66.0166,
	64.018, 62.0437999999999, 60.3399999999999, 58.6856, 57.9836,
	55.0311999999999, 54.6769999999999, 52.3188, 51.4846, 49.4423999999999,
	47.739, 46.1487999999999, 44.9202, 43.4059999999999, 42.5342000000001,
	41.2834, 38.8954000000001, 38.3286000000001, 36.2146, 36.6684, 35.9946,
	33.123, 33.4338, 31.7378000000001, 29.076, 28.9692, 27.4964, 27.0998,
	25.9864, 26.7754, 24.3208, 23.4838, 22.7388000000001, 24.0758000000001,
	21.9097999999999, 20.9728, 19.9228000000001, 19.9292, 16.617, 17.05,
	18.2996000000001, 15.6128000000001, 15.7392, 14.5174, 13.6322,
	12.2583999999999, 13.3766000000001, 11.423, 13.1232, 9.51639999999998,
	10.5938000000001, 9.59719999999993, 8.12220000000002, 9.76739999999995,
	7.50440000000003, 7.56999999999994, 6.70440000000008, 6.41419999999994,
	6.71019999999999, 5.60940000000005, 4.65219999999999, 6.84099999999989,
	3.4072000000001, 3.97859999999991, 3.32760000000007, 5.52160000000003,
	3.31860000000006, 2.06940000000009, 4.35400000000004, 1.57500000000005,
	0.280799999999999, 2.12879999999996, -0.214799999999968,
	-0.0378000000000611, -0.658200000000079, 0.654800000000023,
	-0.0697999999999865, 0.858400000000074, -2.52700000000004,
	-2.1751999999999, -3.35539999999992, -1.04019999999991,
	-0.651000000000067, -2.14439999999991, -1.96659999999997,
	-3.97939999999994, -0.604400000000169, -3.08260000000018,
	-3.39159999999993, -5.29640000000018, -5.38920000000007,
	-5.08759999999984, -4.69900000000007, -5.23720000000003,
	-3.15779999999995, -4.97879999999986, -4.89899999999989,
	-7.48880000000008, -5.94799999999987, -5.68060000000014,
	-6.67180000000008, -4.70499999999993, -7.27779999999984,
	-4.6579999999999, -4.4362000000001, -4.32139999999981,
	-5.18859999999995, -6.66879999999992, -6.48399999999992,
	-5.1260000000002, -4.4032000000002, -6.13500000000022,
	-5.80819999999994, -4.16719999999987, -4.15039999999999,
	-7.45600000000013, -7.24080000000004, -9.83179999999993,
	-5.80420000000004, -8.6561999999999, -6.99940000000015,
	-10.5473999999999, -7.34139999999979, -6.80999999999995,
	-6.29719999999998, -6.23199999999997 };

#define NEST (sizeof(raw9) / sizeof(raw9[0]))
#define K ((size_t)6)

int
sc_eng_hll_precision(double rsd)
{
	return (int)ceil(2.0 * log(1.106 / rsd) / log(2.0));
}

static double
dist(double e, size_t i)
{
	double d = e - raw9[i];

	return d * d;
}

/* Spark's k-nearest-neighbour bias of raw estimate e (precision 9). */
static double
bias_of(double e)
{
	size_t lo = 0, hi = NEST, near, low, high, i;
	double sum = 0;

	/* The first index whose estimate is not below e. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (raw9[mid] < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	near = lo;
	low = near + 1 > K ? near + 1 - K : 0;
	high = low + K < NEST ? low + K : NEST;
	while (high < NEST && dist(e, high) < dist(e, low)) {
		low++;
		high++;
	}
	for (i = low; i < high; i++)
		sum += bias9[i];
	return sum / (double)(high - low);
}

/* Java's Math.round of a double, for the values an estimate takes. */
static int64_t
java_round(double v)
{
	return (int64_t)floor(v + 0.5);
}

int
sc_eng_hll_estimate(const uint8_t *reg, int p, int64_t *out)
{
	int m = 1 << p, i;
	double zinv = 0, v = 0, alpham2, e, h, est;
	bool use_h = false;

	if (p == 4)
		alpham2 = 0.673 * m * m;
	else if (p == 5)
		alpham2 = 0.697 * m * m;
	else if (p == 6)
		alpham2 = 0.709 * m * m;
	else
		alpham2 = (0.7213 / (1.0 + 1.079 / m)) * m * m;
	for (i = 0; i < m; i++) {
		zinv += 1.0 / (double)(UINT64_C(1) << reg[i]);
		if (reg[i] == 0)
			v += 1.0;
	}
	e = alpham2 / zinv;
	h = 0;
	if (v > 0) {
		h = m * log(m / v);
		use_h = (p < 19 && h <= thresholds[p - 4]) || e <= 2.5 * m;
	}
	if (use_h) {
		est = h;
	} else if (p < 19 && e < 5.0 * m) {
		if (p != 9)
			return -1;
		est = e - bias_of(e);
	} else {
		est = e;
	}
	*out = java_round(est);
	return 0;
}

/* The aggregate's state: the precision, then one byte per register. */
struct hll {
	int p;
	uint8_t reg[];
};

static uint64_t
hash_value(sqlite3_value *v, char tag)
{
	union {
		float f;
		uint32_t u;
	} f;
	union {
		double d;
		uint64_t u;
	} d;
	const char *s;

	switch (tag) {
	case 'i':
	case 'z':
		return sc_eng_xxh64_int((int32_t)sqlite3_value_int64(v), 42);
	case 'l':
		return sc_eng_xxh64_long(sqlite3_value_int64(v), 42);
	case 'f':
	case 'd':
		/* NaN travels as text; -0.0 and NaN normalised as Spark's. */
		s = sqlite3_value_type(v) == SQLITE_TEXT
		    ? (const char *)sqlite3_value_text(v)
		    : NULL;
		d.d = s != NULL && strcmp(s, "NaN") == 0
		    ? NAN
		    : sqlite3_value_double(v);
		if (tag == 'f') {
			f.f = (float)d.d;
			if (isnan(f.f))
				f.u = UINT32_C(0x7fc00000);
			else if (f.f == 0)
				f.u = 0;
			return sc_eng_xxh64_int((int32_t)f.u, 42);
		}
		if (isnan(d.d))
			d.u = UINT64_C(0x7ff8000000000000);
		else if (d.d == 0)
			d.u = 0;
		return sc_eng_xxh64_long((int64_t)d.u, 42);
	default:
		if (sqlite3_value_type(v) == SQLITE_BLOB)
			return sc_eng_xxh64(sqlite3_value_blob(v),
			    (size_t)sqlite3_value_bytes(v), 42);
		s = (const char *)sqlite3_value_text(v);
		return sc_eng_xxh64(s, (size_t)sqlite3_value_bytes(v), 42);
	}
}

/* sc_hll(value, tag, p): tag i, z, l, f, d or s (Spark's hash input). */
static void
hll_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct hll *a;
	const char *tag;
	int p = sqlite3_value_int(argv[2]), pw;
	uint64_t x;
	size_t idx;

	(void)argc;
	if (p < 4 || p > 18) {
		sqlite3_result_error(ctx, "sc_hll: precision out of range", -1);
		return;
	}
	a = sqlite3_aggregate_context(ctx,
	    (int)(sizeof(*a) + ((size_t)1 << p)));
	if (a == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	/* The registers were sized for the first row's precision. */
	if (a->p != 0 && a->p != p) {
		sqlite3_result_error(ctx, "sc_hll: precision changed", -1);
		return;
	}
	a->p = p;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	tag = (const char *)sqlite3_value_text(argv[1]);
	x = hash_value(argv[0], tag != NULL ? tag[0] : 's');
	idx = (size_t)(x >> (64 - p));
	/* Leading zeros of the rest, padded so that they stop at 64 - p. */
	x = x << p | UINT64_C(1) << (p - 1);
	pw = __builtin_clzll(x) + 1;
	if (pw > a->reg[idx])
		a->reg[idx] = (uint8_t)pw;
}

static void
hll_final(sqlite3_context *ctx)
{
	struct hll *a = sqlite3_aggregate_context(ctx, 0);
	int64_t est;

	if (a == NULL || a->p == 0) {
		sqlite3_result_int64(ctx, 0);
		return;
	}
	if (sc_eng_hll_estimate(a->reg, a->p, &est) == -1) {
		sqlite3_result_error(ctx,
		    "[UNSUPPORTED_FEATURE.EXPRESSION] approx_count_distinct() "
		    "with a relative standard deviation other than 0.05 needs "
		    "Spark's bias correction for this many values, which "
		    "sc-serve does not hold. SQLSTATE: 0A000",
		    -1);
		return;
	}
	sqlite3_result_int64(ctx, est);
}

int
sc_eng_hll_register(sqlite3 *db)
{
	return sqlite3_create_function_v2(db, "sc_hll", 3,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, hll_step, hll_final,
	    NULL);
}

/* ------------------------------------------------------------------ */
/* approx_count_distinct(col[, rsd]) into SQL                          */
/* ------------------------------------------------------------------ */

/* A literal's value as a double: 0, or -1 when e is no number literal. */
static int
literal_double(const Spark__Connect__Expression *e, double *out)
{
	const Spark__Connect__Expression__Literal *l;

	if (e->expr_type_case != SC_EXPR_(LITERAL))
		return -1;
	l = e->literal;
	switch (l->literal_type_case) {
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
		*out = l->double_;
		return 0;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
		*out = l->float_;
		return 0;
	case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL:
		if (l->decimal == NULL || l->decimal->value == NULL)
			return -1;
		*out = strtod(l->decimal->value, NULL);
		return 0;
	default:
		return -1;
	}
}

static int
sc_eng_approx_count_distinct(struct sc_ectx *x, const struct sc_eplan *in,
    const Spark__Connect__Expression__UnresolvedFunction *f, const char *fn,
    struct sc_buf *sql, struct sc_einfo *ei, struct sc_error *err)
{
	struct sc_buf asql;
	struct sc_einfo aei;
	double rsd = 0.05;
	char tag;
	int p, rc = -1;

	if (f->n_arguments == 2 && literal_double(f->arguments[1], &rsd) == -1)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "%s() takes its relative standard deviation as a double "
		    "literal in sc-serve.",
		    fn);
	p = sc_eng_hll_precision(rsd);
	if (!(rsd > 0) || p < 4)
		return sc_srv_error(err, "INTERNAL_ERROR", "XX000",
		    "requirement failed: HLL++ requires at least 4 bits for "
		    "addressing. Use a lower error, at most 39%%.");
	if (p > 18)
		return sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION",
		    "0A000",
		    "%s() with a relative standard deviation below %g (more "
		    "than 2^18 registers) is not supported by sc-serve.",
		    fn, 1.106 / 512.0);
	sc_buf_init(&asql, SC_BUF_UNLIMITED);
	sc_eng_einfo_init(&aei);
	if (sc_eng_expr(x, in, f->arguments[0], &asql, &aei, err) == -1)
		goto out;
	switch (aei.type.t) {
	case SC_ARROW_INT8:
	case SC_ARROW_INT16:
	case SC_ARROW_INT32:
		tag = 'i';
		break;
	case SC_ARROW_BOOL:
		tag = 'z';
		break;
	case SC_ARROW_INT64:
		tag = 'l';
		break;
	case SC_ARROW_FLOAT:
		tag = 'f';
		break;
	case SC_ARROW_DOUBLE:
		tag = 'd';
		break;
	case SC_ARROW_UTF8:
	case SC_ARROW_LARGE_UTF8:
	case SC_ARROW_BINARY:
	case SC_ARROW_LARGE_BINARY:
	case SC_ARROW_NULL:
		tag = 's';
		break;
	default:
		sc_srv_error(err, "UNSUPPORTED_FEATURE.EXPRESSION", "0A000",
		    "%s() of %s is not supported by sc-serve: only integers, "
		    "booleans, floating point, strings and binary.",
		    fn, (const char *)aei.name.data);
		goto out;
	}
	sc_buf_addf(sql, NULL, "sc_hll(%s, '%c', %d)", (const char *)asql.data,
	    tag, p);
	/* Spark's name shows the column only, not the rsd. */
	sc_buf_addf(&ei->name, NULL, "%s(%s%s)", fn,
	    f->is_distinct ? "DISTINCT " : "", (const char *)aei.name.data);
	memset(&ei->type, 0, sizeof(ei->type));
	ei->type.t = SC_ARROW_INT64;
	ei->nullable = 0;
	rc = 0;
out:
	sc_buf_release(&asql);
	sc_eng_einfo_release(&aei);
	return rc;
}

static const struct sc_efdef defs[] = {
	{ "approx_count_distinct", F_CALL, NULL, 1, 2, R_UNK,
	    .flags = SC_EF_AGG | SC_EF_SKIPS_NULLS,
	    .call = sc_eng_approx_count_distinct },
};
const struct sc_effamily sc_eng_family_hll = { "hll", defs, SC_NELEM(defs) };
