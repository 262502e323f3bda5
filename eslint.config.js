import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
	{ ignores: ["dist/**", "node_modules/**", "data/**", "coverage/**", "reports/**", ".stryker-tmp/**"] },
	js.configs.recommended,
	...tseslint.configs.recommended,
	{
		languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly" } },
		rules: {
			"@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
			"@typescript-eslint/consistent-type-imports": "error",
			"no-console": ["error", { allow: ["error"] }]
		}
	}
);
