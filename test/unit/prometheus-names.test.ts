import { prometheusName, snakeCase } from "../../shared/runtime/prometheus-reporter.js";

test("Moleculer metric names become Prometheus names in base units with the conventional suffixes", () => {
	expect(prometheusName("moleculer.request.time", "histogram", "millisecond")).toBe("moleculer_request_time_seconds");
	expect(prometheusName("moleculer.request.total", "counter", "request")).toBe("moleculer_request_total");
	expect(prometheusName("moleculer.request.error.total", "counter", undefined)).toBe("moleculer_request_error_total");
	expect(prometheusName("memos.attachment.stored", "counter", "byte")).toBe("memos_attachment_stored_bytes_total");
	expect(prometheusName("memos.http.request.duration.seconds", "histogram", "seconds")).toBe("memos_http_request_duration_seconds");
	expect(prometheusName("moleculer.request.bulkhead.queue.size", "gauge", undefined)).toBe("moleculer_request_bulkhead_queue_size");
	expect(prometheusName("moleculer.broker.namespace", "info", undefined)).toBe("moleculer_broker_namespace_info");
	expect(prometheusName("memos_upload_sessions_open", "gauge", undefined)).toBe("memos_upload_sessions_open");
});

test("label names are snake_case", () => {
	expect(snakeCase("nodeID")).toBe("node_id");
	expect(snakeCase("errorName")).toBe("error_name");
	expect(snakeCase("action")).toBe("action");
});
