/** Jest runs the TypeScript sources as native ES modules (jose and cel-js are ESM only). */
export default {
	testEnvironment: "node",
	extensionsToTreatAsEsm: [".ts"],
	transform: {
		"^.+\\.ts$": [
			"@swc/jest",
			{
				jsc: { parser: { syntax: "typescript" }, target: "es2023" },
				module: { type: "es6" }
			}
		]
	},
	moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
	testMatch: ["<rootDir>/test/**/*.test.ts"],
	setupFilesAfterEnv: ["<rootDir>/test/support/fresh-connections.ts"],
	// A guard against hangs, not a bound on speed: in a fresh-clone CI run on a loaded 2-core machine
	// (load 15-20) a hook that starts an embedded app and signs up its users outlasted 30 s.
	testTimeout: 90000
};
