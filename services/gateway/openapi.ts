import { VERSION } from "../../shared/version.js";
import { OPERATION_DOCS, type OperationDoc, type QueryParam } from "./openapi-operations.js";
import { SCHEMAS, ref, type Schema } from "./openapi-schemas.js";
import { pathParams, type RouteSpec } from "./route-spec.js";

/**
 * `GET /openapi.json` (contract 13): OpenAPI 3.0 made from the gateway's route table, so every
 * route the gateway serves is described, with the contract's shapes (openapi-schemas.ts) and
 * what the table does not carry (openapi-operations.ts).
 */

type Json = Record<string, unknown>;

export interface OpenApiDocument {
	openapi: "3.0.3";
	info: { title: string; version: string; description: string };
	servers: { url: string }[];
	tags: { name: string }[];
	paths: Record<string, Record<string, Json>>;
	components: Json;
}

const QUERY_PARAMETERS: Record<QueryParam, Json> = {
	pageSize: { name: "pageSize", in: "query", schema: { type: "integer", format: "int32" }, description: "0 or absent: 50; at most 1000" },
	pageToken: { name: "pageToken", in: "query", schema: { type: "string" }, description: "nextPageToken of the previous page" },
	filter: { name: "filter", in: "query", schema: { type: "string" }, description: "filter expression (contract 6)" },
	orderBy: { name: "orderBy", in: "query", schema: { type: "string" }, description: "e.g. `pinned desc, create_time desc` (contract 6.4)" },
	state: { name: "state", in: "query", schema: { type: "string", enum: ["STATE_UNSPECIFIED", "NORMAL", "ARCHIVED"] } },
	showDeleted: { name: "showDeleted", in: "query", schema: { type: "boolean" } },
	updateMask: { name: "updateMask", in: "query", required: true, schema: { type: "string" }, description: "comma-separated field paths" },
	updateMaskOptional: { name: "updateMask", in: "query", schema: { type: "string" }, description: "comma-separated field paths; absent: replace the whole value" },
	force: { name: "force", in: "query", schema: { type: "boolean" } },
	memoId: { name: "memoId", in: "query", schema: { type: "string" }, description: "client-chosen id; empty: generated" },
	commentId: { name: "commentId", in: "query", schema: { type: "string" }, description: "client-chosen id; empty: generated" },
	attachmentId: { name: "attachmentId", in: "query", schema: { type: "string" }, description: "client-chosen id; empty: generated" },
	spaceId: { name: "spaceId", in: "query", schema: { type: "string" }, description: "client-chosen id; empty: a UUID v4" },
	identityProviderId: { name: "identityProviderId", in: "query", schema: { type: "string" }, description: "client-chosen id; empty: generated" },
	userId: { name: "userId", in: "query", schema: { type: "string" }, description: "optional; must equal user.username" },
	url: { name: "url", in: "query", required: true, schema: { type: "string" } },
	validateOnly: { name: "validateOnly", in: "query", schema: { type: "boolean" }, description: "check the request, save nothing" }
};

const ERROR_RESPONSE = { $ref: "#/components/responses/Error" };
const JSON_OBJECT: Schema = { type: "object", additionalProperties: true };
const json = (schema: Schema) => ({ "application/json": { schema } });

function security(spec: RouteSpec): Json[] {
	const cookie = spec.refreshCookie === true ? [{ refreshCookie: [] }] : [];
	if (spec.ignoresAccessToken === true) return [{}, ...cookie];
	if (spec.access === "signed-in") return [{ bearerAuth: [] }, ...cookie];
	return [{}, { bearerAuth: [] }, ...cookie];
}

const ACCESS_NOTE: Record<RouteSpec["access"], string> = {
	anyone: "Anonymous callers allowed.",
	"public-instance": "Anonymous callers allowed only when the ACCESS setting is INSTANCE_ACCESS_MODE_PUBLIC.",
	"signed-in": "Requires an access token."
};

function operation(spec: RouteSpec, doc: OperationDoc | undefined): Json {
	const parameters = [
		...pathParams(spec.path).map(name => ({ name, in: "path", required: true, schema: { type: "string" }, description: "last segment of the resource name" })),
		...(doc?.query ?? []).map(q => ({ $ref: `#/components/parameters/${q}` }))
	];
	const ok =
		spec.empty === true
			? { description: "Empty: a zero-length body (clients must not parse it)." }
			: spec.eventStream === true
				? { description: "A stream that lasts until either side ends it.", content: { "text/event-stream": { schema: { type: "string" } } } }
				: { description: "OK", content: json(doc?.response ? ref(doc.response) : JSON_OBJECT) };
	const answers = doc?.answers === undefined ? { "200": ok } : Object.fromEntries(Object.entries(doc.answers).map(([status, description]) => [status, { description }]));
	const raw = spec.streamBody === undefined ? {} : { requestBody: { description: "Raw bytes, streamed.", content: { [spec.streamBody]: { schema: { type: "string", format: "binary" } } } } };
	return {
		operationId: spec.operation,
		summary: spec.summary,
		description: [doc?.description, ACCESS_NOTE[spec.access]].filter(Boolean).join(" "),
		tags: [doc?.tag ?? "Other"],
		...(parameters.length > 0 ? { parameters } : {}),
		...(spec.body === undefined ? {} : { requestBody: { description: "A missing or empty body reads as {}.", content: json(doc?.request ? ref(doc.request) : JSON_OBJECT) } }),
		...raw,
		responses: { ...answers, default: ERROR_RESPONSE },
		security: security(spec)
	};
}

/** The file route (contract 8.5): attachment bytes, outside `/api/v1`. */
function fileRoute(named: boolean): Record<string, Json> {
	const parameters = [
		{ name: "attachment", in: "path", required: true, schema: { type: "string" } },
		...(named ? [{ name: "filename", in: "path", required: true, schema: { type: "string" }, description: "informational, not checked" }] : []),
		{ name: "share_token", in: "query", schema: { type: "string" }, description: "a live share token of the attachment's memo" },
		{ name: "thumbnail", in: "query", schema: { type: "boolean" }, description: "images: a JPEG of at most 600 px" }
	];
	const bytes = { "*/*": { schema: { type: "string", format: "binary" } } };
	const responses = {
		"200": { description: "The bytes, with ETag, Last-Modified, Content-Disposition and Accept-Ranges.", content: bytes },
		"206": { description: "One byte range (Range: bytes=…).", content: bytes },
		"304": { description: "If-None-Match matched the ETag." },
		"416": { description: "Range not satisfiable.", content: json(ref("Status")) },
		default: ERROR_RESPONSE
	};
	const base = {
		tags: ["AttachmentService"],
		parameters,
		responses,
		security: [{}, { bearerAuth: [] }, { refreshCookie: [] }]
	};
	const suffix = named ? "Named" : "";
	return {
		get: { ...base, operationId: `GetAttachmentFile${suffix}`, summary: "The attachment's bytes (contract 8.5)." },
		head: { ...base, operationId: `HeadAttachmentFile${suffix}`, summary: "The headers of the attachment's bytes." }
	};
}

/** A user's avatar stored as a data URI (contract 4.8): the path the User message names. */
function avatarRoute(): Record<string, Json> {
	const base = {
		tags: ["UserService"],
		parameters: [{ name: "username", in: "path", required: true, schema: { type: "string" } }],
		responses: {
			"200": { description: "The image, with its type and a strong ETag.", content: { "image/*": { schema: { type: "string", format: "binary" } } } },
			"304": { description: "If-None-Match matched the ETag." },
			default: ERROR_RESPONSE
		},
		security: [{}, { bearerAuth: [] }, { refreshCookie: [] }]
	};
	return {
		get: { ...base, operationId: "GetUserAvatar", summary: "The user's stored avatar image (anonymous callers on public instances only)." },
		head: { ...base, operationId: "HeadUserAvatar", summary: "The headers of the user's stored avatar image." }
	};
}

/** The operations of the table that `OPERATION_DOCS` does not describe. */
export function undocumentedOperations(routes: readonly RouteSpec[]): string[] {
	return routes.filter(spec => !Object.hasOwn(OPERATION_DOCS, spec.operation)).map(spec => spec.operation);
}

export function buildOpenApi(routes: readonly RouteSpec[]): OpenApiDocument {
	const paths: Record<string, Record<string, Json>> = {};
	const tags = new Set<string>();
	for (const spec of routes) {
		const doc = Object.hasOwn(OPERATION_DOCS, spec.operation) ? OPERATION_DOCS[spec.operation] : undefined;
		tags.add(doc?.tag ?? "Other");
		(paths[spec.path] ??= {})[spec.method.toLowerCase()] = operation(spec, doc);
	}
	paths["/file/attachments/{attachment}"] = fileRoute(false);
	paths["/file/attachments/{attachment}/{filename}"] = fileRoute(true);
	tags.add("AttachmentService");
	paths["/file/users/{username}/avatar"] = avatarRoute();
	tags.add("UserService");

	return {
		openapi: "3.0.3",
		info: {
			title: "Memos API",
			version: VERSION,
			description:
				"Markdown memos with comments, reactions, relations, attachments, share links and spaces. JSON follows the proto3 mapping: int64 values are decimal strings, times RFC 3339 in UTC. Every failure answers a Status body."
		},
		servers: [{ url: "/" }],
		tags: [...tags].sort().map(name => ({ name })),
		paths,
		components: {
			schemas: SCHEMAS,
			parameters: QUERY_PARAMETERS,
			responses: { Error: { description: "Status body (contract 1.8); the HTTP status follows the gRPC code.", content: json(ref("Status")) } },
			securitySchemes: {
				bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token from SignIn or RefreshToken." },
				refreshCookie: { type: "apiKey", in: "cookie", name: "memos_refresh", description: "Refresh cookie set by SignIn." }
			}
		}
	};
}
