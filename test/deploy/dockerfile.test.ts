import { readFileSync } from "node:fs";
import { ENV_DEFAULTS, SERVICE_NAMES } from "../../shared/runtime/config.js";
import { NODE_FLAGS } from "../support/processes.js";

/** The image cannot be built here: its recipe is checked against what the project runs and tests. */
const dockerfile = readFileSync("Dockerfile", "utf8");
const stages = dockerfile.split(/^FROM /m).slice(1);
const runtime = stages.at(-1) as string;

describe("Dockerfile", () => {
	test("builds in stages on Node 22, installs with npm ci and runs the build", () => {
		expect(stages.length).toBeGreaterThan(1);
		for (const stage of stages) expect(stage).toMatch(/^node:22[-.\w]*/);
		expect(dockerfile).toMatch(/RUN npm ci\b/);
		expect(dockerfile).toMatch(/RUN npm run build/);
	});

	test("the runtime stage has production dependencies only, runs as a non-root user and starts the command the cluster suites run", () => {
		expect(dockerfile).toMatch(/npm ci --omit=dev/);
		expect(runtime).toMatch(/^USER (?!root\b|0\b)\S+/m);
		const command = ["node", ...NODE_FLAGS, "dist/services/main.js"];
		expect(runtime).toContain(`CMD [${command.map(word => JSON.stringify(word)).join(", ")}]`);
		expect((JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts.start).toContain(command.join(" "));
		expect(readFileSync("test/support/cluster.ts", "utf8")).toContain("[...NODE_FLAGS, MAIN]");
	});

	test("base images are pinned by version; the image carries OCI labels and the COMMIT build argument reaches the process", () => {
		for (const stage of stages) expect(stage).toMatch(/^node:22\.\d+\.\d+-bookworm-slim/);
		expect(runtime).toMatch(/^ARG COMMIT=/m);
		expect(runtime).toMatch(/COMMIT=\$\{COMMIT\}/);
		for (const label of ["title", "version", "revision", "created", "base.name"]) expect(runtime).toContain(`org.opencontainers.image.${label}=`);
		expect(runtime).toContain('org.opencontainers.image.revision="${COMMIT}"');
	});

	test("SERVICES defaults to every service, and the health check asks /healthz on HEALTH_PORT", () => {
		expect(runtime).toContain(`SERVICES=${SERVICE_NAMES.join(",")}`);
		expect(runtime).toContain(`HEALTH_PORT=${ENV_DEFAULTS.HEALTH_PORT}`);
		expect(runtime).toMatch(/HEALTHCHECK [^\n]*\\\n[^\n]*HEALTH_PORT[^\n]*\/healthz/);
	});
});
