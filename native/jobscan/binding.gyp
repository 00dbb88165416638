{
  "targets": [
    {
      "target_name": "jobio_jobscan",
      "sources": ["src/addon.cc", "src/counter-lines.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions", "-O2"],
      "cflags_cc!": ["-fno-exceptions", "-O2"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-fexceptions", "-O3"]
    }
  ]
}
