-- Neovim's built-in LSP client on `trainlint server`: open a file, wait for its diagnostics,
-- write them as JSON, quit. Works from Neovim 0.7 (vim.lsp.start_client; vim.lsp.start is 0.8+).
-- Inputs as globals set with --cmd: arg_path (the file), arg_out (JSON output), arg_py (Python).
local path, out, py = _G.arg_path, _G.arg_out, _G.arg_py
vim.cmd("edit " .. path)
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({name = "trainlint", cmd = {py, "-m", "linter", "server"},
  root_dir = vim.fn.fnamemodify(path, ":h:h")})
vim.lsp.buf_attach_client(buf, id)
local ok = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
local got = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(got, {code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code), lnum = d.lnum, col = d.col, severity = d.severity, message = d.message, source = d.source})
end
local f = io.open(out, "w")
f:write(vim.fn.json_encode({ok = ok, diagnostics = got}))
f:close()
vim.cmd("qa!")
