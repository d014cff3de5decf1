// Sum partial[0 .. 64) into partial[0]; called by all 64 invocations.
fn reduce_partial(lid: u32) {
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            partial[lid] = partial[lid] + partial[lid + s];
        }
        workgroupBarrier();
    }
}
