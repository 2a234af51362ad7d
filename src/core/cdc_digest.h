/*
 * cdc_digest.h — MD5 and SHA-256 of a byte string, for the SQL functions
 * MD5() and SHA256() (the core links no crypto library). Not for security
 * decisions: plain digests, no keys.
 */
#ifndef CDC_DIGEST_H
#define CDC_DIGEST_H

#include <stddef.h>

/* Writes the 16-byte MD5 digest of p[0..n) to out. */
void cdc_digest_md5(const void *p, size_t n, unsigned char out[16]);
/* Writes the 32-byte SHA-256 digest of p[0..n) to out. */
void cdc_digest_sha256(const void *p, size_t n, unsigned char out[32]);
/* Writes n bytes as 2n lowercase hex digits to out (no terminator). */
void cdc_digest_hex(const unsigned char *bytes, size_t n, char *out);

#endif
