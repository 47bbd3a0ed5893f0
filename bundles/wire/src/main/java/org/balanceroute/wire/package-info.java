/**
 * The OpenAI / vLLM wire contract in code, once (docs/vllm-contract.md), for everyone who reads or
 * writes it: the proxy's connector, its admin API, the simulated engine, the replayer and the
 * benchmarks. The prefill and decode hop bodies and the client's streamed completion
 * ({@link org.balanceroute.wire.CompletionBodies}), the KV handle
 * ({@link org.balanceroute.wire.KvHandle}), a prompt of token ids scanned from the request's bytes
 * without a JSON token per id ({@link org.balanceroute.wire.TokenIdBody},
 * {@link org.balanceroute.wire.TokenIdList}, {@link org.balanceroute.wire.TokenIdPrompt}), a
 * prompt's identity ({@link org.balanceroute.wire.PromptKey}) and length
 * ({@link org.balanceroute.wire.PromptTokens}), the OpenAI error body
 * ({@link org.balanceroute.wire.OpenAiErrorBody}) and the types vLLM's request schema declares
 * ({@link org.balanceroute.wire.VllmRequestSchema}).
 * Stateless; every method may be called from any thread.
 */
@Export
@Version("0.4.0")
package org.balanceroute.wire;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
