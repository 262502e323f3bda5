import { createHash } from "node:crypto";
import { TracerExporters, type TracerOptions } from "moleculer";
import type { Config } from "./config.js";

/** A W3C trace context (`traceparent: 00-<trace-id>-<parent-id>-<flags>`) as Moleculer's parent span. */
export interface ParentSpan {
	traceID: string;
	id: string;
	sampled: boolean;
}

const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * The caller's trace context, or undefined for a missing or invalid header (W3C Trace Context
 * §4.2: version ff, all-zero ids and malformed values are ignored, and a new trace starts).
 */
export function parseTraceparent(header: string | string[] | undefined): ParentSpan | undefined {
	if (typeof header !== "string") return undefined;
	const match = TRACEPARENT_RE.exec(header.trim().toLowerCase());
	if (!match) return undefined;
	const [, version, traceID, id, flags] = match as unknown as [string, string, string, string, string];
	if (version === "ff" || (version === "00" && header.trim().length !== 55)) return undefined;
	if (/^0+$/.test(traceID) || /^0+$/.test(id)) return undefined;
	return { traceID, id, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/**
 * Zipkin's hex id of `width` digits for a Moleculer id: UUIDs and a traceparent's ids keep their
 * digits; a client's own X-Request-ID (any plain text) is hashed to a stable id.
 */
function hexId(id: string | null | undefined, width: number): string | undefined {
	if (!id) return undefined;
	const plain = id.replace(/-/g, "").toLowerCase();
	return /^[0-9a-f]+$/.test(plain) && plain.length >= width ? plain.slice(0, width) : createHash("sha256").update(id).digest("hex").slice(0, width);
}

/**
 * Moleculer's Zipkin exporter, keeping 128-bit trace ids: its own cuts every id to 64 bits, which
 * would part our spans from the trace a W3C `traceparent` started upstream.
 */
class ZipkinExporter extends TracerExporters.Zipkin {
	override makePayload(span: { traceID: string; id: string; parentID?: string | null }): Record<string, unknown> {
		const payload = super.makePayload(span as never) as Record<string, unknown>;
		return { ...payload, traceId: hexId(span.traceID, 32), id: hexId(span.id, 16), parentId: hexId(span.parentID, 16) };
	}
}

/** Tracing with Moleculer's tracer; spans leave the process only when an exporter is configured. */
export function tracingOptions(config: Config): TracerOptions {
	if (config.tracingZipkinUrl === undefined) return { enabled: false };
	return {
		enabled: true,
		// Moleculer takes an exporter instance too, although its typings name only the options form.
		exporter: [new ZipkinExporter({ baseURL: config.tracingZipkinUrl.replace(/\/+$/, ""), interval: 1, defaultTags: { namespace: config.namespace } }) as never],
		events: true
	};
}
