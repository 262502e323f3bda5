import { execFileSync } from "node:child_process";
import { OPERATION_DOCS } from "../../services/gateway/openapi-operations.js";
import { buildOpenApi, undocumentedOperations, type OpenApiDocument } from "../../services/gateway/openapi.js";
import { ROUTE_TABLE } from "../../services/gateway/route-table.js";
import { pathParams } from "../../services/gateway/route-spec.js";
import { startEmbeddedApp, type EmbeddedApp } from "../support/embedded-app.js";

/** `/openapi.json` (contract 13): made from the route table, valid OpenAPI 3.0, and complete. */

/**
 * @apidevtools/swagger-parser loads an ES-module-only dependency with require(), which Node
 * allows and Jest's module runtime does not: it runs in a Node child process.
 */
function openApiProblems(document: unknown): string {
	const script = `import SwaggerParser from "@apidevtools/swagger-parser";
let text = "";
for await (const chunk of process.stdin) text += chunk;
try { await SwaggerParser.validate(JSON.parse(text)); } catch (err) { process.stdout.write(err.message); }`;
	return execFileSync(process.execPath, ["--input-type=module", "-e", script], { input: JSON.stringify(document), encoding: "utf8" });
}

type Operation = { operationId: string; parameters?: { name?: string; in?: string; $ref?: string }[]; requestBody?: unknown; responses: Record<string, { content?: unknown }> };
const operationOf = (doc: OpenApiDocument, path: string, method: string) => doc.paths[path]?.[method.toLowerCase()] as Operation | undefined;

describe("OpenAPI document", () => {
	const doc = buildOpenApi(ROUTE_TABLE);

	test("passes a real OpenAPI validator", () => {
		expect(openApiProblems(doc)).toBe("");
		expect(openApiProblems({ ...doc, paths: { "/x": { get: { responses: { "200": { description: "", content: { "application/json": { schema: { $ref: "#/components/schemas/Nope" } } } } } } } } })).toMatch(/Nope/);
		expect(doc.openapi).toMatch(/^3\.0\./);
		expect(doc.info.version).toBe("0.0.1");
	});

	test("every route of the table is documented (a route added without documentation fails here)", () => {
		expect(undocumentedOperations(ROUTE_TABLE)).toEqual([]);
		const [first] = ROUTE_TABLE;
		expect(undocumentedOperations([{ ...first!, operation: "FrobnicateMemo" }])).toEqual(["FrobnicateMemo"]);
	});

	test("every route appears under its contract path and method, with its path parameters and its access", () => {
		for (const spec of ROUTE_TABLE) {
			const op = operationOf(doc, spec.path, spec.method);
			expect({ route: `${spec.method} ${spec.path}`, operationId: op?.operationId }).toEqual({ route: `${spec.method} ${spec.path}`, operationId: spec.operation });
			const declared = (op?.parameters ?? []).filter(p => p.in === "path").map(p => p.name);
			expect(declared).toEqual(pathParams(spec.path));
			const security = (op as unknown as { security: Record<string, unknown>[] }).security;
			if (spec.access === "signed-in" && spec.ignoresAccessToken !== true) expect(security).not.toContainEqual({});
			else expect(security).toContainEqual({});
		}
		const ids = Object.values(doc.paths).flatMap(p => Object.values(p).map(o => o.operationId));
		expect(new Set(ids).size).toBe(ids.length);
	});

	test("bodies and answers agree with the route table: Empty operations have no response schema, body-less ones no request body", () => {
		for (const spec of ROUTE_TABLE) {
			const docs = OPERATION_DOCS[spec.operation];
			const op = operationOf(doc, spec.path, spec.method) as Operation;
			expect({ operation: spec.operation, emptyAnswer: docs?.response === undefined }).toEqual({ operation: spec.operation, emptyAnswer: spec.empty === true || spec.eventStream === true || docs?.answers !== undefined });
			expect({ operation: spec.operation, body: op.requestBody !== undefined }).toEqual({ operation: spec.operation, body: spec.body !== undefined || spec.streamBody !== undefined });
			if (docs?.request !== undefined) expect({ operation: spec.operation, takesBody: spec.body !== undefined }).toEqual({ operation: spec.operation, takesBody: true });
			expect(op.responses.default).toEqual({ $ref: "#/components/responses/Error" });
		}
	});

	test("the file route is described with its GET and HEAD operations", () => {
		for (const path of ["/file/attachments/{attachment}", "/file/attachments/{attachment}/{filename}"]) {
			expect(operationOf(doc, path, "GET")?.responses["200"]?.content).toBeDefined();
			expect(operationOf(doc, path, "HEAD")).toBeDefined();
		}
	});

	test("the Status error schema is the contract's", () => {
		const schemas = (doc.components as { schemas: Record<string, { required?: string[] }> }).schemas;
		expect(schemas.Status?.required).toEqual(["code", "message", "details"]);
	});
});

describe("GET /openapi.json", () => {
	let app: EmbeddedApp;
	beforeAll(async () => {
		app = await startEmbeddedApp();
	});
	afterAll(async () => {
		await app?.stop();
	});

	test("serves the document to anonymous callers, and it validates", async () => {
		const res = await fetch(`${app.baseUrl}/openapi.json`);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
		const served = (await res.json()) as OpenApiDocument;
		expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApi(ROUTE_TABLE))));
		expect(openApiProblems(served)).toBe("");
		expect(served.paths["/api/v1/instance/profile"]?.get?.operationId).toBe("GetInstanceProfile");
	});

	test("the reference page and its assets come from this server; unknown assets are NOT_FOUND", async () => {
		const page = await fetch(`${app.baseUrl}/api-docs`);
		expect(page.status).toBe(200);
		expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
		const html = await page.text();
		const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(m => m[1] as string);
		expect(urls.length).toBeGreaterThan(2);
		for (const url of urls) {
			expect(url).toMatch(/^\/api-docs\//);
			const asset = await fetch(`${app.baseUrl}${url}`);
			expect({ url, status: asset.status }).toEqual({ url, status: 200 });
			await asset.arrayBuffer();
		}
		for (const name of ["package.json", "..%2Fpackage.json", "index.html"]) {
			const res = await fetch(`${app.baseUrl}/api-docs/${name}`);
			expect({ name, status: res.status }).toEqual({ name, status: 404 });
			expect(((await res.json()) as { code: number }).code).toBe(5);
		}
	});
});
