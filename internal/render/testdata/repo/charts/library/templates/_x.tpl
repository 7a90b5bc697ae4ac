{{- define "library.x" -}}x{{- end -}}
