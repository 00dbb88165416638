{
  "targets": [
    {
      "target_name": "jobio_nvml",
      "sources": ["src/addon.cc", "src/nvml_api.cc", "src/nvml_binding.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-fexceptions"],
      "libraries": ["-ldl"]
    }
  ]
}
