/* SPDX-License-Identifier: MIT */

/*
 * banned.h: functions that are too easy to misuse.  Included last by
 * every .c file, so a use becomes a compile error.
 */

#ifndef SC_BANNED_H
#define SC_BANNED_H

#define SC_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) SC_BANNED(strcpy)
#undef strcat
#define strcat(x, y) SC_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) SC_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) SC_BANNED(strncat)
#undef sprintf
#define sprintf(...) SC_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) SC_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) SC_BANNED(strtok)
#undef gets
#define gets(x) SC_BANNED(gets)
#undef atoi
#define atoi(x) SC_BANNED(atoi)
#undef atol
#define atol(x) SC_BANNED(atol)
#undef gmtime
#define gmtime(x) SC_BANNED(gmtime)
#undef localtime
#define localtime(x) SC_BANNED(localtime)
#undef ctime
#define ctime(x) SC_BANNED(ctime)

#endif
