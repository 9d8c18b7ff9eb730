# "<..., Last>" markers.
def is_first_and_last(first, last):
    if not first.startswith('<') or not first.endswith(', First>'):
        return False
    if not last.startswith('<') or not last.endswith(', Last>'):
        return False
    return first[1:-8] == last[1:-7]

def gen_mph_data(name, d, kv_type, kv_callback, kv_row_width):
    (salt, keys) = minimal_perfect_hash(d)
    out.write(f"\npub(crate) const {name.upper()}_SALT: &[u16] = &[\n")
    for s_row in batched(salt, 13):
        out.write("   ")
        for s in s_row:
            out.write(f" 0x{s:03X},")
        out.write("\n")
    out.write("];\n")
    out.write(f"pub(crate) const {name.upper()}_KV: &[{kv_type}] = &[\n")
    for k_row in batched(keys, kv_row_width):
        out.write("   ")
        for k in k_row:
            out.write(f" {kv_callback(k)},")
        out.write("\n")
