// zlib itself, for what compress-nio does not offer: a gzip member made of a deflated prefix
// kept from one playlist version and a tail deflated for the next (OriginRegistry, PrefixGzip). Named apart from ZIPFoundation's own CZlib module.
#include <zlib.h>
