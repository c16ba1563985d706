# Whiteboard installer for Windows: the same steps as install.sh.
#
#   powershell -ExecutionPolicy Bypass -File installers\install.ps1
#
# Creates a virtualenv (default %LOCALAPPDATA%\whiteboard\venv), installs this checkout
# into it, registers the host (HKCU registry keys) with every browser that has a profile
# here, and says how to load extension\. Safe to run again.
#
# NOT TESTED on a real Windows machine: it is kept deliberately simple. The registry
# code it relies on (`whiteboard install`) is tested against a fake winreg module.
# If something fails, `whiteboard doctor` says which step and what to do.

param(
    [string]$Venv = (Join-Path $env:LOCALAPPDATA "whiteboard\venv"),
    [string]$Python = "",
    [string[]]$Browser = @(),
    [string[]]$ExtensionId = @(),
    [switch]$NoRegister
)

$ErrorActionPreference = "Stop"
$Repo = Split-Path -Parent $PSScriptRoot

function Fail($message) {
    Write-Host "install.ps1: $message" -ForegroundColor Red
    exit 1
}

function Test-Python([string[]]$Command) {
    try {
        $exe = $Command[0]
        $rest = @($Command | Select-Object -Skip 1)
        & $exe @rest -c "import sys; sys.exit(sys.version_info < (3, 11))" 2>$null | Out-Null
        return $LASTEXITCODE -eq 0
    } catch {
        return $false
    }
}

function Find-Python {
    if ($Python) {
        if (Test-Python @($Python)) { return @($Python) }
        Fail "$Python is not a working Python 3.11+"
    }
    foreach ($candidate in @(@("py", "-3.13"), @("py", "-3.12"), @("py", "-3.11"), @("python"))) {
        if (Test-Python $candidate) { return $candidate }
    }
    Fail "no Python 3.11+ found. Install it from https://www.python.org/downloads/ (tick 'Add to PATH') and run this again."
}

if (-not (Test-Path (Join-Path $Repo "pyproject.toml")) -or -not (Test-Path (Join-Path $Repo "extension"))) {
    Fail "run this from a Whiteboard checkout ($Repo has no pyproject.toml/extension)"
}

# 1. The environment.
$VenvPython = Join-Path $Venv "Scripts\python.exe"
if ((Test-Path $VenvPython) -and (Test-Python @($VenvPython))) {
    Write-Host "Using the existing environment $Venv"
} else {
    $py = @(Find-Python)  # @(): PowerShell unrolls a one-element array on return
    Write-Host "Creating the environment $Venv"
    $exe = $py[0]
    $rest = @($py | Select-Object -Skip 1)
    & $exe @rest -m venv --clear $Venv
    if ($LASTEXITCODE -ne 0) { Fail "could not create the environment at $Venv" }
}

# 2. This checkout, installed editable (the host stays in step with extension\ after a git pull).
Write-Host "Installing Whiteboard from $Repo"
& $VenvPython -m pip --disable-pip-version-check install --quiet --upgrade pip
if ($LASTEXITCODE -ne 0) { Fail "could not update pip (no network?)" }
& $VenvPython -m pip --disable-pip-version-check install --quiet -e $Repo
if ($LASTEXITCODE -ne 0) { Fail "pip could not install Whiteboard (see above)" }

# 3. Register with the browsers.
$Whiteboard = Join-Path $Venv "Scripts\whiteboard.exe"
$registered = $false
if (-not $NoRegister) {
    $installArgs = @("install", "--no-next-steps")
    foreach ($b in $Browser) { $installArgs += @("--browser", $b) }
    foreach ($id in $ExtensionId) { $installArgs += @("--extension-id", $id) }
    & $Whiteboard @installArgs
    if ($LASTEXITCODE -eq 0) {
        $registered = $true
    } else {
        Write-Host ""
        Write-Host "The host is installed but not registered with a browser yet. Start Chrome (or"
        Write-Host "Chromium, Brave, Edge, Vivaldi) once, then run: $Whiteboard install"
    }
}

# 4. How to load the extension.
if ($ExtensionId.Count -gt 0) {
    $id = $ExtensionId[0]
} else {
    $id = & $VenvPython -c "from whiteboard.config import EXTENSION_ID; print(EXTENSION_ID)"
}
$extensionDir = & $Whiteboard extension path
Write-Host ""
Write-Host "Whiteboard is installed in $Venv"
Write-Host "Load the extension:"
Write-Host "  1. Open chrome://extensions (Brave: brave://extensions, Edge: edge://extensions, Vivaldi: vivaldi://extensions)"
Write-Host '  2. Turn on "Developer mode"'
Write-Host "  3. Click ""Load unpacked"" and choose: $extensionDir"
Write-Host "  4. The extension id shown must be: $id"
Write-Host "Check the connection any time: $Whiteboard doctor"
if ($NoRegister) { Write-Host "Register the host when ready: $Whiteboard install" }
if (-not $NoRegister -and -not $registered) { exit 3 }
exit 0
