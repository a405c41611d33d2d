/* IsDNS1123Label / IsDNS1123Subdomain of apimachinery's validation. */
#include "api/validation.h"

static bool label_ok(const char *s, size_t n) {
    if (n == 0 || n > MS_DNS1123_LABEL_MAX) return false;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        bool lower_alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!lower_alnum && (c != '-' || k == 0 || k == n - 1)) return false;
    }
    return true;
}

bool ms_is_dns1123_label(const char *s, size_t n) { return label_ok(s, n); }

bool ms_is_dns1123_subdomain(const char *s, size_t n) {
    if (n == 0 || n > MS_DNS1123_SUBDOMAIN_MAX) return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') continue;
        /* a subdomain's labels are not limited to 63 characters, only the whole */
        if (i == start) return false;
        for (size_t k = start; k < i; k++) {
            char c = s[k];
            bool lower_alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!lower_alnum && (c != '-' || k == start || k == i - 1)) return false;
        }
        start = i + 1;
    }
    return true;
}
