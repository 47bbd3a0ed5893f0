/**
 * The engine connector for vLLM / vllm-ascend with Mooncake KV transfer: the two hops of
 * docs/vllm-contract.md (prefill with {@code kv_transfer_params.do_remote_decode}, then
 * decode on a chosen DP worker with the prefill's KV handle), as the proxy drives them; in
 * co-located mode (no prefill tier) the decode hop only. Health checks tell registered
 * {@link org.balanceroute.connector.vllm.DecodeAvailabilityListener}s which decode workers can
 * take requests. {@link org.balanceroute.connector.vllm.SseScanner} cuts a decode answer into
 * the events a {@code DecodeListener} is given.
 *
 * <p>Threading: every method may be called from any thread; futures and
 * {@link org.balanceroute.connector.vllm.DecodeListener} callbacks run on the HTTP client's
 * threads and must not block.
 */
@Export
@Version("2.2.0")
package org.balanceroute.connector.vllm;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
